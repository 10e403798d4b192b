//expect: race
//expect-unfixable

// Twin of ticketThreadFences.cu whose ticket is taken under `threadIdx.x == 0 &&
// blockIdx.x != 5`: block 5 takes none, so no block draws the last ticket, and block
// 5 goes into the last block's branch on a flag it set itself before. Only a ticket
// condition that lets thread 0 of every block through is a ticket.
#include <cuda_runtime.h>

__device__ unsigned int arrivals_skip = 0;

__global__ void total_skip(const float *data, float *result)
{
    __shared__ bool isLast;
    if (threadIdx.x == 0) isLast = true;
    __syncthreads();
    if (threadIdx.x == 0) result[blockIdx.x] = data[blockIdx.x]; //~ race(result)
    __threadfence();
    if (threadIdx.x == 0 && blockIdx.x != 5) {
        unsigned int value = atomicInc(&arrivals_skip, gridDim.x);
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
    total_skip<<<64, 256>>>(data, result);
}
