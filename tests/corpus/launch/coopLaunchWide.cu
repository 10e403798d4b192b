//expect: race
//expect-unfixable

// Twin of coopLaunch.cu: the cooperative launch has blocks of 2 * WIDTH threads
// while the kernel steps blocks by WIDTH, so neighbouring blocks write the same
// elements of `ring` before the grid sync and of `out` after it.
#include <cooperative_groups.h>
#include <cuda_runtime.h>
namespace cg = cooperative_groups;

#define WIDTH 128

__global__ void smooth_ring(float *ring, float *out)
{
    cg::grid_group grid = cg::this_grid();
    unsigned n = gridDim.x * WIDTH;
    unsigned i = blockIdx.x * WIDTH + threadIdx.x;
    ring[i] = out[i] * 0.5f;                    //~ race(ring)
    grid.sync();
    out[i] = ring[i] + ring[(i + WIDTH) % n];   //~ race(out)
}

int main()
{
    const int blocks = 8;
    float *d_ring, *d_out;
    cudaMalloc(&d_ring, blocks * WIDTH * sizeof(float));
    cudaMalloc(&d_out, blocks * WIDTH * sizeof(float));
    void *args[] = {&d_ring, &d_out};
    cudaLaunchCooperativeKernel((void *)smooth_ring, blocks, 2 * WIDTH, args, 0, 0);
    cudaDeviceSynchronize();
    return 0;
}
