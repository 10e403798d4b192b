//pass
//--blockDim=128 --gridDim=16
//expect: verified

// A grid sync also orders the threads of one block: after it, each thread reads
// an element another thread of its block wrote before it.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void two_phase(float *buf, float *out)
{
    cg::grid_group grid = cg::this_grid();
    unsigned base = blockIdx.x * blockDim.x;
    buf[base + threadIdx.x] = out[base + threadIdx.x] * 2.0f;
    grid.sync();
    out[base + threadIdx.x] = buf[base + (threadIdx.x + 1) % blockDim.x];
}
