//expect: race
//expect-unfixable

// Twin of fenceInGridIf.cu whose `atomicInc` wraps at 8 while 64 blocks draw tickets:
// the ticket 63 never comes, and several blocks draw 7, the value compared.
#include <cuda_runtime.h>

__device__ unsigned int finished_wrap = 0;

__global__ void fold_wrap(const float *values, float *sums)
{
    __shared__ bool lastOne;
    if (threadIdx.x == 0) sums[blockIdx.x] = values[blockIdx.x]; //~ race(sums)
    __threadfence();
    if (threadIdx.x == 0) {
        unsigned int drawn = atomicInc(&finished_wrap, 7);
        lastOne = (drawn == 7);
    }
    __syncthreads();
    if (lastOne) {
        if (threadIdx.x == 0) {
            float total = 0.0f;
            for (unsigned b = 0; b < 8; b++) total += sums[b]; //~ race(sums)
            sums[0] = total; //~ race(sums)
        }
    }
}

void fold(const float *values, float *sums)
{
    fold_wrap<<<64, 128>>>(values, sums);
}
