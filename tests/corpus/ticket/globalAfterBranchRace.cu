//expect: race
//expect-unfixable

// Twin of ticketThreadFences.cu where every block clears its own flag after the
// last-block branch. That store comes after the block's ticket in every block, so the
// last block's read of the flags is not ordered with it; a note says why the ticket
// orders nothing.
#include <cuda_runtime.h>

__device__ unsigned int arrivals_after = 0;

__global__ void total_after(const float *data, float *result, int *flags)
{
    __shared__ bool isLast;
    if (threadIdx.x == 0) {
        result[blockIdx.x] = data[blockIdx.x]; //~ race(result)
        __threadfence();
        unsigned int value = atomicInc(&arrivals_after, gridDim.x);
        isLast = (value == gridDim.x - 1);
    }
    __syncthreads();
    if (isLast) {
        if (threadIdx.x == 0) {
            float sum = 0.0f;
            int set = 0;
            for (unsigned b = 0; b < gridDim.x; b++) {
                sum += result[b]; //~ race(result)
                set += flags[b]; //~ race(flags)
            }
            result[0] = sum + set; //~ race(result)
        }
    }
    if (threadIdx.x == 0) flags[blockIdx.x] = 0; //~ race(flags)
}

void launch_total(const float *data, float *result, int *flags, int blocks)
{
    total_after<<<blocks, 256>>>(data, result, flags);
}
