//expect: verified

// Ways of saying "this block drew the last ticket": the ticket plus one equals the
// number of blocks, the flag copied into a local first, and the branch narrowed to
// thread 0 with `&&`; and `ticket >= gridDim.x - 1` in a second kernel.
#include <cuda_runtime.h>

__device__ unsigned int seen_a = 0;
__device__ unsigned int seen_b = 0;

__global__ void last_plus_one(const float *data, float *partial, float *total)
{
    __shared__ unsigned int drawn;
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = data[blockIdx.x];
        __threadfence();
        drawn = atomicAdd(&seen_a, 1);
    }
    __syncthreads();
    bool closing = drawn + 1 == gridDim.x;
    if (closing && threadIdx.x == 0) {
        float s = 0.0f;
        for (unsigned b = 0; b < gridDim.x; b++) s += partial[b];
        *total = s;
    }
}

__global__ void last_at_least(const float *data, float *partial, float *total)
{
    __shared__ unsigned int drawn;
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = data[blockIdx.x];
        __threadfence();
        drawn = atomicInc(&seen_b, gridDim.x);
    }
    __syncthreads();
    if (drawn >= gridDim.x - 1) {
        if (threadIdx.x == 0) {
            float s = 0.0f;
            for (unsigned b = 0; b < gridDim.x; b++) s += partial[b];
            *total = s;
        }
    }
}

void launch_both(const float *data, float *partial, float *total, int blocks)
{
    last_plus_one<<<blocks, 128>>>(data, partial, total);
    last_at_least<<<blocks, 128>>>(data, partial, total);
}
