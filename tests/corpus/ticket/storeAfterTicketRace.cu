//expect: race
//expect-unfixable

// Twin of ticketThreadFences.cu where thread 0 stores its block's result after drawing
// the ticket: nothing orders that store before the last block's reads.
#include <cuda_runtime.h>

__device__ unsigned int arrivals_late = 0;

__global__ void total_late(const float *data, float *result)
{
    __shared__ bool isLast;
    if (threadIdx.x == 0) {
        __threadfence();
        unsigned int value = atomicInc(&arrivals_late, gridDim.x);
        result[blockIdx.x] = data[blockIdx.x]; //~ race(result)
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

void launch_total(const float *data, float *result, int blocks)
{
    total_late<<<blocks, 256>>>(data, result);
}
