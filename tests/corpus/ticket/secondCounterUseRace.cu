//expect: race
//expect-unfixable

// Twin of ticketThreadFences.cu where thread 0 also counts its block on the same
// counter before the ticket: every block adds two, the tickets are no longer one per
// block, and the block that draws `gridDim.x - 1` is in the middle of the run.
#include <cuda_runtime.h>

__device__ unsigned int arrivals_twice = 0;

__global__ void total_twice(const float *data, float *result)
{
    __shared__ bool isLast;
    if (threadIdx.x == 0) {
        atomicAdd(&arrivals_twice, 1);
        result[blockIdx.x] = data[blockIdx.x]; //~ race(result)
        __threadfence();
        unsigned int value = atomicAdd(&arrivals_twice, 1);
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
    total_twice<<<blocks, 256>>>(data, result);
}
