//expect: race
//expect-tool: race (the ticket is not used, so the last block's store to `result[0]` is reported against the other blocks' fenced stores and against itself; only the read is really unordered)
//expect-unfixable

// Twin of ticketThreadFences.cu whose last block reads the partial results through a
// function the file does not define: it may load them through a cache the other
// blocks' fences do not reach (a non-coherent load), so the ticket orders nothing.
#include <cuda_runtime.h>

__device__ float load_partial(const float *p);

__device__ unsigned int arrivals_opaque = 0;

__global__ void total_opaque(const float *data, float *result)
{
    __shared__ bool isLast;
    if (threadIdx.x == 0) {
        result[blockIdx.x] = data[blockIdx.x]; //~ race(result)
        __threadfence();
        unsigned int value = atomicInc(&arrivals_opaque, gridDim.x);
        isLast = (value == gridDim.x - 1);
    }
    __syncthreads();
    if (isLast) {
        if (threadIdx.x == 0) {
            float sum = 0.0f;
            for (unsigned b = 0; b < gridDim.x; b++) sum += load_partial(result + b); //~ race(result)
            result[0] = sum; //~? race(result)
        }
    }
}

void launch_total(const float *data, float *result)
{
    total_opaque<<<64, 256>>>(data, result);
}
