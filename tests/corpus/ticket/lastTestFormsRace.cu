//expect: race
//expect-tool: race (in second_to_last the pattern is not used, so several blocks may seem to take the branch: their write-write pair on `total` cannot happen, one block draws each ticket)
//expect-unfixable

// Twins of lastTestForms.cu: the block whose ticket plus two is the number of blocks
// (the second-to-last one) goes on before the last block has stored its part; and a
// branch taken by the last block *or* by thread 0 of every block.
#include <cuda_runtime.h>

__device__ unsigned int seen_c = 0;
__device__ unsigned int seen_d = 0;

__global__ void second_to_last(const float *data, float *partial, float *total)
{
    __shared__ unsigned int drawn;
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = data[blockIdx.x]; //~ race(partial)
        __threadfence();
        drawn = atomicAdd(&seen_c, 1);
    }
    __syncthreads();
    bool closing = drawn + 2 == gridDim.x;
    if (closing && threadIdx.x == 0) {
        float s = 0.0f;
        for (unsigned b = 0; b < gridDim.x; b++) s += partial[b]; //~ race(partial)
        *total = s; //~? race(total)
    }
}

__global__ void last_or_leader(const float *data, float *partial, float *total)
{
    __shared__ unsigned int drawn;
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = data[blockIdx.x]; //~ race(partial)
        __threadfence();
        drawn = atomicInc(&seen_d, gridDim.x);
    }
    __syncthreads();
    if (drawn == gridDim.x - 1 || threadIdx.x == 0) {
        if (threadIdx.x == 0) {
            float s = 0.0f;
            for (unsigned b = 0; b < gridDim.x; b++) s += partial[b]; //~ race(partial)
            *total = s; //~ race(total)
        }
    }
}

void launch_both(const float *data, float *partial, float *total, int blocks)
{
    second_to_last<<<blocks, 128>>>(data, partial, total);
    last_or_leader<<<blocks, 128>>>(data, partial, total);
}
