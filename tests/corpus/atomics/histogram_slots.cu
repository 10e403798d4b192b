//--blockDim=256 --gridDim=1
//expect: verified
//dynamic: verified (no run has a negative slot)
// Histogram sub-bins: each element takes the next slot of its bin (a counter per bin)
// and is stored in the bin's row of `CAP` slots when there is room. The slot is read
// from an `unsigned int` counter, so it is never negative.
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
    if (slot < CAP)
        rows[bin * CAP + slot] = k;
}
