//expect: race
//expect-tool: race (the pattern is not proved, so every block may seem to take the last block's branch: the write-write pair between two such blocks cannot happen, only one block draws the last ticket)
//expect-unfixable

// Twin of scratchRows.cu launched on an 8x8 grid: the tickets run to 63, so the block
// that draws `gridDim.x - 1 = 7` is not the last one, and it reads slots other blocks
// have not written yet.
#include <cuda_runtime.h>

__global__ void column_sums_2d(const float *rows, float *out, float *scratch, int C)
{
    __shared__ unsigned int ticket;
    int slot = blockIdx.x + blockIdx.y * gridDim.x;
    for (int c = threadIdx.x; c < C; c += blockDim.x) scratch[slot * C + c] = rows[slot * C + c]; //~ race(scratch)
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) {
        ticket = atomicAdd((unsigned int *)(scratch + C * 64), 1);
    }
    __syncthreads();
    if (ticket == gridDim.x - 1) {
        for (int c = threadIdx.x; c < C; c += blockDim.x) {
            float s = 0.0f;
            for (int b = 0; b < 64; b++) s += scratch[b * C + c]; //~ race(scratch)
            out[c] = s; //~? race(out)
        }
    }
}

void launch_2d(const float *rows, float *out, float *scratch, int C)
{
    column_sums_2d<<<dim3(8, 8), 128>>>(rows, out, scratch, C);
}
