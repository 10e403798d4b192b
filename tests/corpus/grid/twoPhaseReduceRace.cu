//pass
//--blockDim=64 --gridDim=8
//expect: race
//expect-unfixable

// The two-phase sum without its grid-wide sync: block 0 may read a partial sum
// before the block that owns it has written it. Only a grid barrier (a
// cooperative launch) orders threads of different blocks.
// Two-phase sum: each block folds its slice in shared
// memory and publishes one partial sum; after the grid-wide sync, block 0 adds the
// partials of all blocks.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void two_phase_sum(const float *in, float *partial, float *total)
{
    __shared__ float acc[64];
    cg::grid_group grid = cg::this_grid();
    unsigned t = threadIdx.x;
    acc[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (unsigned half = blockDim.x / 2; half > 0; half >>= 1) {
        if (t < half) {
            acc[t] += acc[t + half];
        }
        __syncthreads();
    }
    if (t == 0) {
        partial[blockIdx.x] = acc[0]; //~ race(partial)
    }
    // (the grid-wide sync is missing here)
    if (blockIdx.x == 0 && t == 0) {
        float s = 0.0f;
        for (unsigned b = 0; b < gridDim.x; ++b) {
            s += partial[b]; //~ race(partial)
        }
        *total = s;
    }
}
