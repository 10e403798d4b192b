//expect: verified

// Twin of changedUnseenRace.cu: the same launches with the sizes only read. A
// `const &` argument (in a file that casts no const away), a by-value parameter and the
// runtime's allocation calls keep the size what its declaration says (32 threads),
// and each kernel is right for blocks of at most 64 threads. (A reference
// *parameter*, even `const`, is unknown inside its function: what it is bound to may
// change through another name.)
#include <cuda_runtime.h>

__global__ void fill_a(int *cells) { cells[threadIdx.x % 64] = threadIdx.x; }
__global__ void fill_b(int *cells) { cells[threadIdx.x % 64] = threadIdx.x; }
__global__ void fill_c(int *cells) { cells[threadIdx.x % 64] = threadIdx.x; }

static int report(const int &n) { return n > 0; }
static int twice(int n) { return 2 * n; }

static void launch_c(int *cells, dim3 block)
{
    fill_c<<<1, block>>>(cells);
}

int main()
{
    int *cells;
    int a = 32;
    cudaMalloc(&cells, a * sizeof(int) + twice(a));
    report(a);
    fill_a<<<1, a>>>(cells);

    const int b = 32;
    cudaMemset(cells, 0, b * sizeof(int));
    fill_b<<<1, b>>>(cells);

    dim3 block(32);
    launch_c(cells, block);
    cudaDeviceSynchronize();
    return 0;
}
