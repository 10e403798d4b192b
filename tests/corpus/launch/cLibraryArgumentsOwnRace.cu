//expect: race

// Twin of cLibraryArguments.cu: here the names only look like the toolkit's. The file
// declares `cublasPickWidth` with a reference parameter, and `cudaRoundWidth` is the
// file's own function that halves its argument: what the file says wins over the
// library's naming, so the widths are unknown at the launches (and really are 32, which
// makes two threads of a block share a cell).
#include <cuda_runtime.h>

void cublasPickWidth(int &width);

static void cudaRoundWidth(int &width) { width = width / 2; }

__global__ void add_rows(float *rows, int width)
{
    rows[blockIdx.x * width + threadIdx.x % width] += 1.0f;  //~ race(rows)
}

__global__ void scale_rows(float *rows, int width, float by)
{
    rows[blockIdx.y * width + threadIdx.x % width] *= by;  //~ race(rows)
}

static void stage(float *rows, int n, int width)
{
    add_rows<<<n, 64>>>(rows, width);
    cublasPickWidth(width);
}

static void noisy(float *rows, int n, int width)
{
    cudaRoundWidth(width);
    dim3 grid(1, n);
    scale_rows<<<grid, 64>>>(rows, width, 0.5f);
}

int main()
{
    float *rows;
    int n = 32;
    int width = 64;
    cudaMalloc(&rows, n * width * sizeof(float));
    stage(rows, n, width);
    noisy(rows, n, width);
    cudaDeviceSynchronize();
    return 0;
}
