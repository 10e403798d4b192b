//expect: verified

// Two-dimensional blocks: the ticket is drawn by the thread of flat rank 0
// (`threadIdx.x + threadIdx.y * blockDim.x == 0`, one thread per block), and the last
// block is recognized through a local copy of the ticket compared in the branch
// (`atomicAdd(.., 1)`, a `bool` stored in shared memory).
#include <cuda_runtime.h>

__device__ unsigned int done_blocks;

__global__ void tile_max(const int *img, int *tile_best, int *best, int width)
{
    __shared__ int m[16][16];
    __shared__ bool closing;
    int x = blockIdx.x * 16 + threadIdx.x;
    int y = blockIdx.y * 16 + threadIdx.y;
    m[threadIdx.y][threadIdx.x] = img[y * width + x];
    __syncthreads();
    int rank = threadIdx.x + threadIdx.y * blockDim.x;
    int tile = blockIdx.x + blockIdx.y * gridDim.x;
    if (rank == 0) {
        int b = m[0][0];
        for (int i = 0; i < 16; i++)
            for (int j = 0; j < 16; j++) b = max(b, m[i][j]);
        tile_best[tile] = b;
        __threadfence();
        unsigned int mine = atomicAdd(&done_blocks, 1);
        closing = mine == gridDim.x * gridDim.y - 1;
    }
    __syncthreads();
    if (closing) {
        if (rank == 0) {
            int b = tile_best[0];
            for (int t = 1; t < gridDim.x * gridDim.y; t++) b = max(b, tile_best[t]);
            *best = b;
            done_blocks = 0;
        }
    }
}

#define WIDTH 1920
#define HEIGHT 1088

void run_tile_max(const int *img, int *tile_best, int *best)
{
    dim3 threads(16, 16);
    dim3 grid(WIDTH / 16, HEIGHT / 16);
    tile_max<<<grid, threads>>>(img, tile_best, best, WIDTH);
}
