//expect: race
//expect-tool: race (the pattern is not proved, so every block may seem to take the last block's branch: the write-write pair between two such blocks cannot happen, only one block draws the last ticket)

// Twin of flatRankTicket.cu where the ticket is drawn under `threadIdx.x == 0` alone:
// with 16x16 blocks, sixteen threads of every block draw one, so the counter passes
// `gridDim.x * gridDim.y - 1` long before the last block is done.
#include <cuda_runtime.h>

__device__ unsigned int done_rows;

__global__ void tile_max_rows(const int *img, int *tile_best, int *best, int width)
{
    __shared__ bool closing;
    int tile = blockIdx.x + blockIdx.y * gridDim.x;
    if (threadIdx.x == 0 && threadIdx.y == 0) tile_best[tile] = img[tile * 256]; //~ race(tile_best)
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned int mine = atomicAdd(&done_rows, 1);
        closing = mine == gridDim.x * gridDim.y - 1; //~ race(closing)
    }
    __syncthreads();
    if (closing) {
        if (threadIdx.x == 0 && threadIdx.y == 0) {
            int b = tile_best[0]; //~ race(tile_best)
            for (int t = 1; t < gridDim.x * gridDim.y; t++) b = max(b, tile_best[t]); //~ race(tile_best)
            *best = b; //~? race(best)
        }
    }
}

void run_tile_max(const int *img, int *tile_best, int *best)
{
    tile_max_rows<<<dim3(120, 68), dim3(16, 16)>>>(img, tile_best, best, 1920);
}
