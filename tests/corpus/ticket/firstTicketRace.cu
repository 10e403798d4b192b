//expect: race
//expect-unfixable

// Twin of ticketThreadFences.cu whose branch is taken by the block that draws the
// *first* ticket: it runs before the others have stored their partial results.
#include <cuda_runtime.h>

__device__ unsigned int arrivals_first = 0;

__global__ void total_first(const float *data, unsigned n, float *result)
{
    __shared__ bool isFirst;
    if (threadIdx.x == 0) {
        result[blockIdx.x] = data[blockIdx.x]; //~ race(result)
        __threadfence();
        unsigned int value = atomicInc(&arrivals_first, gridDim.x);
        isFirst = (value == 0);
    }
    __syncthreads();
    if (isFirst) {
        if (threadIdx.x == 0) {
            float sum = 0.0f;
            for (unsigned b = 0; b < gridDim.x; b++) sum += result[b]; //~ race(result)
            result[0] = sum; //~ race(result)
        }
    }
}

void launch_total(const float *data, unsigned n, float *result, int blocks)
{
    total_first<<<blocks, 256>>>(data, n, result);
}
