//expect: verified

// Race-free only because of its launch: the host launches `smooth_ring` with
// `cudaLaunchCooperativeKernel`, 8 blocks of 128 threads. Every thread reads the
// element the next block's thread wrote before `grid.sync()`, and `ring` has
// exactly gridDim.x * 128 elements because the kernel steps blocks by the constant
// WIDTH. With `--launch symbolic` blocks wider than WIDTH overlap in `ring`.
#include <cooperative_groups.h>
#include <cuda_runtime.h>
namespace cg = cooperative_groups;

#define WIDTH 128

__global__ void smooth_ring(float *ring, float *out)
{
    cg::grid_group grid = cg::this_grid();
    unsigned n = gridDim.x * WIDTH;
    unsigned i = blockIdx.x * WIDTH + threadIdx.x;
    ring[i] = out[i] * 0.5f;
    grid.sync();
    out[i] = ring[i] + ring[(i + WIDTH) % n];
}

int main()
{
    const int blocks = 8;
    float *d_ring, *d_out;
    cudaMalloc(&d_ring, blocks * WIDTH * sizeof(float));
    cudaMalloc(&d_out, blocks * WIDTH * sizeof(float));
    void *args[] = {&d_ring, &d_out};
    cudaLaunchCooperativeKernel((void *)smooth_ring, blocks, WIDTH, args, 0, 0);
    cudaDeviceSynchronize();
    return 0;
}
