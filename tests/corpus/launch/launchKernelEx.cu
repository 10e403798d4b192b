//expect: verified

// Race-free only because of its launch: `cudaLaunchKernelEx` with a configuration
// of one block of 64 x 4 threads. Each thread of the one block owns the cell
// `hist[threadIdx.y][threadIdx.x]` of a 4 x 64 table. With `--launch symbolic` a
// second block updates the same cells.
#include <cuda_runtime.h>

__global__ void tally(const unsigned char *bytes, unsigned (*hist)[64], int n)
{
    unsigned lane = threadIdx.y * blockDim.x + threadIdx.x;
    unsigned stride = blockDim.x * blockDim.y;
    for (unsigned i = lane; i < n; i += stride) {
        hist[threadIdx.y][threadIdx.x] += bytes[i];
    }
}

int main()
{
    const int n = 1 << 20;
    unsigned char *d_bytes;
    unsigned (*d_hist)[64];
    cudaMalloc(&d_bytes, n);
    cudaMalloc(&d_hist, 4 * 64 * sizeof(unsigned));
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(1);
    cfg.blockDim = dim3(64, 4);
    cudaLaunchKernelEx(&cfg, tally, d_bytes, d_hist, n);
    cudaDeviceSynchronize();
    return 0;
}
