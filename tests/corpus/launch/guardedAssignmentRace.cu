//expect: race

// Twin of guardedAssignment.cu. `run` clamps the wrong way (small sizes up, so 512
// and 1024 threads stay): those two launch contexts race, the others do not.
// `run_rows` widens the block under a condition on `argc`, which the reader cannot
// evaluate, and `run_else` assigns in both branches of an `if`/`else`: their sizes
// are unknown at the launch, and the kernels are reported (they do race: 512 threads
// for rows of 64 cells).
#include <cuda_runtime.h>

__global__ void fill(int *cells) { cells[threadIdx.x % 256] = threadIdx.x; }  //~ race(cells)

__global__ void fill_rows(int *cells, int width)
{
    cells[blockIdx.x * width + threadIdx.x % width] = threadIdx.x;  //~ race(cells)
}

__global__ void fill_once(int *cells) { cells[threadIdx.x % 64] = threadIdx.x; }  //~ race(cells)

static void run(int *cells, int block_size)
{
    if (block_size < 256) {
        block_size = 256;
    }
    fill<<<1, block_size>>>(cells);
}

static void run_rows(int *cells, int rows, int width, int argc)
{
    int threads = width;
    if (argc > 2) threads = 512;
    fill_rows<<<rows, threads>>>(cells, width);
}

static void run_else(int *cells, bool narrow)
{
    int threads;
    if (narrow)
        threads = 64;
    else
        threads = 512;
    fill_once<<<1, threads>>>(cells);
}

int main(int argc, char **argv)
{
    int *cells;
    cudaMalloc(&cells, 16 * 128 * sizeof(int));
    int sizes[] = {64, 128, 512, 1024};
    for (int i = 0; i < 4; i++) {
        run(cells, sizes[i]);
    }
    run_rows(cells, 16, 64, argc);
    run_else(cells, false);
    cudaDeviceSynchronize();
    return 0;
}
