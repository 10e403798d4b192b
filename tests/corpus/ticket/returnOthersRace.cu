//expect: race
//expect-tool: race (the pattern is not proved, so every block may seem to take the last block's branch: the write-write pair between two such blocks cannot happen, only one block draws the last ticket)
//expect-unfixable

// Twin of returnOthers.cu where the barrier comes before the fence instead of after
// it: each thread's fence orders its own stores, but thread 0 draws the ticket without
// waiting for the other threads' fences, so the last block may read a slot before it
// is visible.
#include <cuda_runtime.h>

#define BINS 64

__device__ unsigned int slices_done_early;

__global__ void merge_histograms_early(const unsigned char *data, int n, unsigned int *partial, unsigned int *hist)
{
    __shared__ unsigned int local_hist[BINS];
    __shared__ unsigned int my_ticket;
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) local_hist[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&local_hist[data[i] % BINS], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) partial[blockIdx.x * BINS + b] = local_hist[b]; //~ race(partial)
    __threadfence();
    if (threadIdx.x == 0) my_ticket = atomicAdd(&slices_done_early, 1);
    __syncthreads();
    if (my_ticket != gridDim.x - 1) return;
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) {
        unsigned int sum = 0;
        for (int k = 0; k < gridDim.x; k++) sum += partial[k * BINS + b]; //~ race(partial)
        hist[b] = sum; //~? race(hist)
    }
}

void histogram(const unsigned char *data, int n, unsigned int *partial, unsigned int *hist)
{
    merge_histograms_early<<<32, 256>>>(data, n, partial, hist);
}
