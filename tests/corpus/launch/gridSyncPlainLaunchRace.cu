//expect: race

// Twin of coopLaunch.cu launched with `<<<8, WIDTH>>>`, not cooperatively: a grid
// sync is undefined there (it does not order the blocks), so it is checked as no
// synchronization and the read of the next block's element races with its write.
#include <cooperative_groups.h>
#include <cuda_runtime.h>
namespace cg = cooperative_groups;

#define WIDTH 128

__global__ void smooth_ring(float *ring, float *out)
{
    cg::grid_group grid = cg::this_grid();
    unsigned n = gridDim.x * WIDTH;
    unsigned i = blockIdx.x * WIDTH + threadIdx.x;
    ring[i] = out[i] * 0.5f;                        //~ race(ring)
    grid.sync();
    out[i] = ring[i] + ring[(i + WIDTH) % n];       //~ race(ring)
}

int main()
{
    const int blocks = 8;
    float *d_ring, *d_out;
    cudaMalloc(&d_ring, blocks * WIDTH * sizeof(float));
    cudaMalloc(&d_out, blocks * WIDTH * sizeof(float));
    smooth_ring<<<blocks, WIDTH>>>(d_ring, d_out);
    cudaDeviceSynchronize();
    return 0;
}
