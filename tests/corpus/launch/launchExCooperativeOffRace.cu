//expect: race

// The launch attribute is `cudaLaunchAttributeCooperative` with the value 0: not a
// cooperative launch, so the grid sync does not order the blocks.
#include <cooperative_groups.h>
#include <cuda_runtime.h>
namespace cg = cooperative_groups;
#define WIDTH 128
__global__ void smooth_ring(float *ring, float *out)
{
    cg::grid_group grid = cg::this_grid();
    unsigned n = gridDim.x * WIDTH;
    unsigned i = blockIdx.x * WIDTH + threadIdx.x;
    ring[i] = out[i] * 0.5f;  //~ race(ring)
    grid.sync();
    out[i] = ring[i] + ring[(i + WIDTH) % n];  //~ race(ring)
}

int main()
{
    float *d_ring, *d_out;
    cudaMalloc(&d_ring, 1 << 20);
    cudaMalloc(&d_out, 1 << 20);
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeCooperative;
    attr[0].val.cooperative = 0;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(8);
    cfg.blockDim = dim3(WIDTH);
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    cudaLaunchKernelEx(&cfg, smooth_ring, d_ring, d_out);
    return 0;
}
