//--blockDim=256 --gridDim=1
//expect: verified
//expect-tool: race (false alarm: the slot atomicAdd returns is not known to be non-negative, since memory is untyped for the oracles; a negative slot of one bin would be a slot of the bin before)
//dynamic: verified (no run has a negative slot)
// Histogram sub-bins: each element takes the next slot of its bin (a counter per bin)
// and is stored in the bin's row of `CAP` slots when there is room.
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
        rows[bin * CAP + slot] = k; //~? race(rows)
}
