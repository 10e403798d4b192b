//expect: race
//expect-tool: race (the pattern is not proved, so every block may seem to take the last block's branch: the write-write pair between two such blocks cannot happen, only one block draws the last ticket)
//expect-unfixable

// Twin of scratchRows.cu without the `__threadfence()`: the counter says which block
// is last, but nothing orders the other blocks' stores to `scratch` before their
// ticket, so the last block may read a slot before its store is visible. (llm.c's
// layernorm_backward kernels 6 to 10 have this shape.) A note says why the ticket
// orders nothing.
#include <cuda_runtime.h>

__global__ void column_sums_nofence(const float *rows, float *out, float *scratch, int R, int C)
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
    for (int c = threadIdx.x; c < C; c += blockDim.x) scratch[blockIdx.x * C + c] = acc[c]; //~ race(scratch)
    __syncthreads();
    if (threadIdx.x == 0) {
        *ticket = atomicAdd(counter, 1);
    }
    __syncthreads();
    if (*ticket == gridDim.x - 1) {
        for (int c = threadIdx.x; c < C; c += blockDim.x) {
            float s = 0.0f;
            for (int b = 0; b < gridDim.x; b++) s += scratch[b * C + c]; //~ race(scratch)
            out[c] = s; //~? race(out)
        }
    }
}

void launch_column_sums(const float *rows, float *out, float *scratch, int R, int C)
{
    column_sums_nofence<<<64, 256, (C + 1) * sizeof(float)>>>(rows, out, scratch, R, C);
}
