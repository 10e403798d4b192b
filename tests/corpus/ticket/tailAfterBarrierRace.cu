//expect: race
//expect-unfixable

// Twin of fenceInGridIf.cu where every thread stores its own folded value after the
// last `__syncthreads()`, then fences, and thread 0 draws the ticket at once. Thread
// 5's fence does not make its store visible before thread 0's ticket (no barrier
// between the fence and the ticket), so the last block may read a stale slot.
#include <cuda_runtime.h>

#define THREADS 128

__device__ unsigned int finished_tail = 0;

__global__ void fold_slots(const float *values, float *slots, unsigned count)
{
    __shared__ float part[THREADS];
    unsigned lane = threadIdx.x;
    unsigned at = blockIdx.x * THREADS + lane;
    part[lane] = at < count ? values[at] : 0.0f;
    __syncthreads();
    slots[at] = part[lane] + part[(lane + 1) % THREADS]; //~ race(slots)
    if (gridDim.x > 1) {
        __shared__ bool lastOne;
        __threadfence();
        if (lane == 0) {
            unsigned int drawn = atomicInc(&finished_tail, gridDim.x);
            lastOne = (drawn == gridDim.x - 1);
        }
        __syncthreads();
        if (lastOne) {
            float total = 0.0f;
            for (unsigned b = lane; b < gridDim.x * THREADS; b += THREADS) total += slots[b]; //~ race(slots)
            part[lane] = total;
        }
    }
}

void fold(const float *values, float *slots, unsigned count)
{
    fold_slots<<<(count + THREADS - 1) / THREADS, THREADS>>>(values, slots, count);
}
