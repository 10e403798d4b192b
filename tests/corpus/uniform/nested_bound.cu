//pass
//--blockDim=128 --gridDim=32
//expect: verified

// Rounds of a worklist: each round thread 0 publishes how many items are left,
// and the block walks them chunk by chunk; the count changes between rounds,
// with a barrier on either side (the last loop test reads it too).

__global__ void rounds(const int *work, int *counts, int *out, int numRounds)
{
    __shared__ int left;
    __shared__ int items[128];
    unsigned int tid = threadIdx.x;

    for (int r = 0; r < numRounds; r++) {
        if (tid == 0)
            left = counts[blockIdx.x * numRounds + r] & 1023;
        __syncthreads();
        for (int c = 0; c < left; c += 128) {
            items[tid] = c + tid < left ? work[blockIdx.x * 1024 + c + tid] : 0;
            __syncthreads();
            if (tid == 0)
                out[blockIdx.x] += items[127];
            __syncthreads();
        }
        __syncthreads();
    }
}
