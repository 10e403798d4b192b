//pass
//--blockDim=64 --gridDim=4
//expect: race

// Tiles of 8 threads: the sync of one tile orders only its own 8 threads, and
// the partner `t ^ 8` is in the neighbouring tile.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void swap_tiles(float *data)
{
    __shared__ float s[64];
    auto tile = cg::tiled_partition<8>(cg::this_thread_block());
    unsigned t = threadIdx.x;
    s[t] = data[blockIdx.x * 64 + t]; //~ race(s)
    tile.sync();
    float v = s[t ^ 8];               //~ race(s)
    cg::sync(cg::this_thread_block());
    data[blockIdx.x * 64 + t] = v;
}
