//--blockDim=256 --gridDim=1
//expect: verified
// Each of the first 32 threads owns a row of 8 columns of a shared table and stores
// its key in the column `key % 8`. The key is read from an `unsigned int` array, so
// the column is never negative: every store stays inside its owner's row.
#define BINS 32
__global__ void place(const unsigned int *keys, unsigned int *rows)
{
    __shared__ unsigned int row[BINS * 8];
    unsigned int t = threadIdx.x;
    unsigned int key = keys[t];
    unsigned int col = key % 8;
    if (t < BINS)
        row[t * 8 + col] = key;
    __syncthreads();
    if (t < BINS * 8)
        rows[t] = row[t];
}
