//expect: race

// A `dim3` field assigned under an `if` may or may not hold the new value at the
// launch: `block.x` is 128 or 32, and 128 threads race on the 64 cells. The
// assignment after the launch does not reach it, and is not taken either.
#include <cuda_runtime.h>

__global__ void fill(int *cells) { cells[threadIdx.x % 64] = threadIdx.x; }  //~ race(cells)

int main(int argc, char **argv)
{
    int *cells;
    cudaMalloc(&cells, 64 * sizeof(int));
    dim3 block(128);
    if (argc > 1) {
        block.x = 32;
    }
    fill<<<1, block>>>(cells);
    block.x = 16;
    cudaDeviceSynchronize();
    return 0;
}
