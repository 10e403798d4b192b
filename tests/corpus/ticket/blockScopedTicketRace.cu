//expect: race
//expect-unfixable

// Twin of ticketThreadFences.cu whose ticket is drawn with `atomicInc_block`: atomic
// only among the threads of one block, so the blocks' tickets are not one count and
// order nothing between blocks.
#include <cuda_runtime.h>

__device__ unsigned int arrivals_scoped = 0;

__global__ void total_scoped(const float *data, float *result)
{
    __shared__ bool isLast;
    if (threadIdx.x == 0) {
        result[blockIdx.x] = data[blockIdx.x]; //~ race(result)
        __threadfence();
        unsigned int value = atomicInc_block(&arrivals_scoped, gridDim.x);
        isLast = (value == gridDim.x - 1);
    }
    __syncthreads();
    if (isLast) {
        if (threadIdx.x == 0) {
            float sum = 0.0f;
            for (unsigned b = 0; b < gridDim.x; b++) sum += result[b]; //~ race(result)
            result[0] = sum; //~ race(result)
        }
    }
}

void launch_total(const float *data, float *result)
{
    total_scoped<<<64, 256>>>(data, result);
}
