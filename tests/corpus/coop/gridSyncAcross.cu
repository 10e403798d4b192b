//pass
//--blockDim=128 --gridDim=16
//expect: verified
//expect-tool: race (false alarm: a grid-wide sync is checked as a barrier of each block, issue #19)

// After the grid sync every thread reads an element written by a thread of the
// next block. The grid sync orders this; autosync checks it as a block barrier
// only and reports the pair across blocks (never the other way round).
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void shift_blocks(float *buf, float *out)
{
    cg::grid_group grid = cg::this_grid();
    unsigned n = gridDim.x * blockDim.x;
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    buf[i] = out[i];              //~? race(buf)
    grid.sync();
    out[i] = buf[(i + blockDim.x) % n]; //~? race(buf)
}
