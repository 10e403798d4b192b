//expect: race
//expect-unfixable

// Twin of ticketThreadFences.cu whose ticket thread also sets the flag with an atomic
// after storing the test: every block ends up with the flag set and goes into the
// last block's branch. The flag's one store in the ticket's branch must be its only
// update there.
#include <cuda_runtime.h>

__device__ unsigned int arrivals_flag = 0;

__global__ void total_flag(const float *data, float *result)
{
    __shared__ unsigned int isLast;
    if (threadIdx.x == 0) {
        result[blockIdx.x] = data[blockIdx.x]; //~ race(result)
        __threadfence();
        unsigned int value = atomicInc(&arrivals_flag, gridDim.x);
        isLast = (value == gridDim.x - 1);
        atomicExch(&isLast, 1u);
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
    total_flag<<<64, 256>>>(data, result);
}
