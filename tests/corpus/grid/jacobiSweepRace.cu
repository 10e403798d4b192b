//pass
//--blockDim=32 --gridDim=4
//expect: race
//expect-unfixable

// A one-dimensional Jacobi relaxation over the whole grid, with ping-pong buffers:
// each sweep reads the neighbours of a cell from one buffer and writes the other;
// neighbours at block edges belong to other blocks, so every sweep ends with a
// grid-wide sync before the buffers swap roles. Both buffers race at each line; a
// report names the buffer of its witness.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void jacobi(float *u, float *v, int sweeps)
{
    cg::grid_group grid = cg::this_grid();
    int n = gridDim.x * blockDim.x;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    for (int s = 0; s < sweeps; ++s) {
        float *src = (s % 2 == 0) ? u : v;
        float *dst = (s % 2 == 0) ? v : u;
        float left = i > 0 ? src[i - 1] : 0.0f; //~ race(u)
        float right = i + 1 < n ? src[i + 1] : 0.0f; //~ race(u)
        dst[i] = 0.5f * (left + right); //~ race(u)
        // (no grid-wide sync: the next sweep may read a cell before its new value is written)
    }
}
