//pass
//--blockDim=128 --gridDim=16
//expect: verified

// After the grid sync every thread reads an element written by a thread of the
// next block. The grid sync (a grid-wide barrier) orders this.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void shift_blocks(float *buf, float *out)
{
    cg::grid_group grid = cg::this_grid();
    unsigned n = gridDim.x * blockDim.x;
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    buf[i] = out[i];
    grid.sync();
    out[i] = buf[(i + blockDim.x) % n];
}
