//expect: verified

// Host code that clamps a size under an `if` (no `else`) before the launch: the
// reader takes the assignment when the condition holds for the values the callers
// pass, and the value from before the `if` when it does not. `fill` is right for
// blocks of at most 256 threads; `fill_rows` for blocks no wider than a row.
#include <cuda_runtime.h>

__global__ void fill(int *cells) { cells[threadIdx.x % 256] = threadIdx.x; }

__global__ void fill_rows(int *cells, int width)
{
    cells[blockIdx.x * width + threadIdx.x % width] = threadIdx.x;
}

static void run(int *cells, int block_size)
{
    if (block_size > 256) {
        block_size = 256;
    }
    fill<<<1, block_size>>>(cells);
}

static void run_rows(int *cells, int rows, int width, bool narrow)
{
    int threads = 512;
    if (narrow)
        threads = width;
    if (threads > width) threads = width;  // a second clamp, on the first one's value
    fill_rows<<<rows, threads>>>(cells, width);
}

int main()
{
    int *cells;
    cudaMalloc(&cells, 16 * 128 * sizeof(int));
    int sizes[] = {64, 128, 512, 1024};
    for (int i = 0; i < 4; i++) {
        run(cells, sizes[i]);
    }
    run_rows(cells, 16, 128, true);
    run_rows(cells, 16, 64, false);
    cudaDeviceSynchronize();
    return 0;
}
