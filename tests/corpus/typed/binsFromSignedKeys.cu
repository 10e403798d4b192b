//--blockDim=256 --gridDim=1
//expect: race
//dynamic: verified (the runs' memory holds small non-negative values: no key is negative)
// Twin of binsFromKeys.cu with `int` keys: `key % 8` is negative for a negative key
// (C's remainder takes the sign of the dividend), so thread t's column -1 is the last
// column of row t - 1, which thread t - 1 may write too.
#define BINS 32
__global__ void place(const int *keys, unsigned int *rows)
{
    __shared__ unsigned int row[BINS * 8];
    unsigned int t = threadIdx.x;
    int key = keys[t];
    int col = key % 8;
    if (t < BINS)
        row[t * 8 + col] = key; //~ race(row)
    __syncthreads();
    if (t < BINS * 8)
        rows[t] = row[t];
}
