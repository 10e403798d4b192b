//expect: race
//expect-tool: race (the pattern is not used, so every block may seem to take the last block's branch: the write-write pair between two such blocks cannot happen)
//expect-unfixable

// Twin of scratchRows.cu whose last block reads the slots with `__ldg`: through the
// read-only data cache, for data that does not change during the kernel, which the
// other blocks' fences do not reach. A note says why the ticket orders nothing.
#include <cuda_runtime.h>

__global__ void column_sums_ldg(const float *rows, float *out, float *scratch, int C)
{
    __shared__ unsigned int ticket;
    for (int c = threadIdx.x; c < C; c += blockDim.x) scratch[blockIdx.x * C + c] = rows[blockIdx.x * C + c]; //~ race(scratch)
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) ticket = atomicAdd((unsigned int *)(scratch + C * gridDim.x), 1);
    __syncthreads();
    if (ticket == gridDim.x - 1) {
        for (int c = threadIdx.x; c < C; c += blockDim.x) {
            float s = 0.0f;
            for (int b = 0; b < gridDim.x; b++) s += __ldg(&scratch[b * C + c]); //~ race(scratch)
            out[c] = s; //~? race(out)
        }
    }
}

void launch_ldg(const float *rows, float *out, float *scratch, int C)
{
    column_sums_ldg<<<64, 256>>>(rows, out, scratch, C);
}
