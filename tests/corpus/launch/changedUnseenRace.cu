//expect: race

// Every block size here starts as 32 and is then changed in a way that is not a
// plain `x = e;` statement: through a reference parameter of a function declared
// but not defined, a reference bound to it, `std::swap`, a `dim3 &` out-parameter,
// and a host function's own parameter passed on by reference. Each kernel is right
// only for blocks of at most 64 threads, so each launch must be checked for any
// block size, and each races.
#include <cuda_runtime.h>
#include <utility>

__global__ void fill_a(int *cells) { cells[threadIdx.x % 64] = threadIdx.x; }  //~ race(cells)
__global__ void fill_b(int *cells) { cells[threadIdx.x % 64] = threadIdx.x; }  //~ race(cells)
__global__ void fill_c(int *cells) { cells[threadIdx.x % 64] = threadIdx.x; }  //~ race(cells)
__global__ void fill_d(int *cells) { cells[threadIdx.x % 64] = threadIdx.x; }  //~ race(cells)
__global__ void fill_e(int *cells) { cells[threadIdx.x % 64] = threadIdx.x; }  //~ race(cells)

void pick_width(int &n);

static void configure(dim3 &grid, dim3 &block)
{
    block = dim3(128);
    grid = dim3(1);
}

static void round_up(int &n) { n = (n + 127) / 128 * 128; }

static void launch_e(int *cells, int threads)
{
    round_up(threads);
    fill_e<<<1, threads>>>(cells);
}

int main()
{
    int *cells;
    cudaMalloc(&cells, 64 * sizeof(int));

    int a = 32;
    pick_width(a);
    fill_a<<<1, a>>>(cells);

    int b = 32;
    int &alias = b;
    alias = 256;
    fill_b<<<1, b>>>(cells);

    int c = 32, wide = 512;
    std::swap(c, wide);
    fill_c<<<1, c>>>(cells);

    dim3 grid(1), block(32);
    configure(grid, block);
    fill_d<<<grid, block>>>(cells);

    launch_e(cells, 32);
    cudaDeviceSynchronize();
    return 0;
}
