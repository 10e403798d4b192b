//fail
//--blockDim=128 --gridDim=32
//expect: race

// Thread 0 already publishes the next round's count at the end of the round,
// with no barrier after the last chunk: the others may still be about to read
// the old count at the top of the round.

__global__ void roundsEarly(const int *work, int *counts, int *out, int numRounds)
{
    __shared__ int left;
    __shared__ int items[128];
    unsigned int tid = threadIdx.x;

    if (tid == 0)
        left = counts[blockIdx.x * numRounds] & 1023;
    __syncthreads();
    for (int r = 0; r < numRounds; r++) {
        int n = left; //~ race(left)
        for (int c = 0; c < n; c += 128) {
            items[tid] = c + tid < n ? work[blockIdx.x * 1024 + c + tid] : 0;
            __syncthreads();
            if (tid == 0)
                out[blockIdx.x] += items[127];
            __syncthreads();
        }
        if (tid == 0 && r + 1 < numRounds)
            left = counts[blockIdx.x * numRounds + r + 1] & 1023; //~ race(left)
    }
}
