//expect: verified

// A single-pass sum in the style of the SDK's threadFenceReduction: every block folds
// its slice in shared memory, thread 0 stores the block's sum, every thread fences,
// thread 0 draws a ticket, and the block that draws the last one adds up every
// block's sum. The ticket orders those reads after the other blocks' stores (they
// precede the fence of the thread that drew their block's ticket). The ticket code
// sits inside `if (gridDim.x > 1)`, a test every block takes alike.
#include <cuda_runtime.h>

#define THREADS 128

__device__ unsigned int finished = 0;

__global__ void fold_all(const float *values, float *sums, unsigned count)
{
    __shared__ float part[THREADS];
    unsigned lane = threadIdx.x;
    unsigned at = blockIdx.x * THREADS + lane;
    part[lane] = at < count ? values[at] : 0.0f;
    __syncthreads();
    for (unsigned half = THREADS / 2; half > 0; half /= 2) {
        if (lane < half) part[lane] += part[lane + half];
        __syncthreads();
    }
    if (lane == 0) sums[blockIdx.x] = part[0];

    if (gridDim.x > 1) {
        __shared__ bool lastOne;
        __threadfence();
        if (lane == 0) {
            unsigned int drawn = atomicInc(&finished, gridDim.x);
            lastOne = (drawn == gridDim.x - 1);
        }
        __syncthreads();
        if (lastOne) {
            float total = 0.0f;
            for (unsigned b = lane; b < gridDim.x; b += THREADS) total += sums[b];
            part[lane] = total;
            __syncthreads();
            for (unsigned half = THREADS / 2; half > 0; half /= 2) {
                if (lane < half) part[lane] += part[lane + half];
                __syncthreads();
            }
            if (lane == 0) {
                sums[0] = part[0];
                finished = 0;
            }
        }
    }
}

void fold(const float *values, float *sums, unsigned count)
{
    fold_all<<<(count + THREADS - 1) / THREADS, THREADS>>>(values, sums, count);
}
