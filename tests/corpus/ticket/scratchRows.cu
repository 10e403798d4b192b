//expect: verified

// llm.c's shape: each block accumulates a row of C values in shared memory, every
// thread copies its part of the row to the block's slot of a global scratch buffer,
// fences, the block meets at a barrier, and thread 0 adds one to a counter kept at the
// end of the same buffer. The ticket goes through a shared cell carved out of the
// dynamic shared memory; the block that read `gridDim.x - 1` sums the slots.
#include <cuda_runtime.h>

__global__ void column_sums(const float *rows, float *out, float *scratch, int R, int C)
{
    extern __shared__ float acc[];
    unsigned int *ticket = (unsigned int *)(acc + C);
    for (int c = threadIdx.x; c < C; c += blockDim.x) acc[c] = 0.0f;
    __syncthreads();
    for (int r = blockIdx.x; r < R; r += gridDim.x) {
        for (int c = threadIdx.x; c < C; c += blockDim.x) acc[c] += rows[r * C + c];
    }
    __syncthreads();
    unsigned int *counter = (unsigned int *)(scratch + C * gridDim.x);
    for (int c = threadIdx.x; c < C; c += blockDim.x) scratch[blockIdx.x * C + c] = acc[c];
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) {
        *ticket = atomicAdd(counter, 1);
    }
    __syncthreads();
    if (*ticket == gridDim.x - 1) {
        for (int c = threadIdx.x; c < C; c += blockDim.x) {
            float s = 0.0f;
            for (int b = 0; b < gridDim.x; b++) s += scratch[b * C + c];
            out[c] = s;
        }
    }
}

void launch_column_sums(const float *rows, float *out, float *scratch, int R, int C)
{
    column_sums<<<64, 256, (C + 1) * sizeof(float)>>>(rows, out, scratch, R, C);
}
