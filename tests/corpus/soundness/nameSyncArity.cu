//--blockDim=64 --gridDim=1
//expect: race

#include <cooperative_groups.h>
using namespace cooperative_groups;

// The file's `sync()` takes no argument, so `sync(tile)` is cooperative_groups::sync of
// a one-warp tile: it orders the warp, not the block, and the two warps race.
__device__ void sync() { __syncthreads(); }

__global__ void halves(int *out)
{
    __shared__ int s[64];
    unsigned t = threadIdx.x;
    thread_block_tile<32> tile = tiled_partition<32>(this_thread_block());
    s[t] = t; //~ race(s)
    sync(tile);
    out[t] = s[(t + 32) % 64]; //~ race(s)
}
