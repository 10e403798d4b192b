//--blockDim=256 --gridDim=1
//expect: race
//dynamic: verified (the runs' keys fall into few bins, and no bin gets past CAP slots)
// Twin of histogram_slots.cu without the room check: a slot past the row of one bin is
// a slot of the next bin's row.
#define BINS 16
#define CAP 64
__global__ void bucket(const unsigned int *keys, unsigned int *rows)
{
    __shared__ unsigned int fill[BINS];
    if (threadIdx.x < BINS)
        fill[threadIdx.x] = 0;
    __syncthreads();
    unsigned int k = keys[threadIdx.x];
    unsigned int bin = k % BINS;
    unsigned int slot = atomicAdd(&fill[bin], 1);
    rows[bin * CAP + slot] = k; //~ race(rows)
}
