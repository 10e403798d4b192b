//pass
//--blockDim=128 --gridDim=8
//expect: verified

// A tile of 32 threads is one warp: its sync orders the exchange between lanes
// of one warp (a warp barrier), and the block sync the exchange across warps.
#include <cooperative_groups.h>
using namespace cooperative_groups;

__global__ void butterfly(int *data)
{
    __shared__ int s[128];
    thread_block block = this_thread_block();
    thread_block_tile<32> warp = tiled_partition<32>(block);
    unsigned t = threadIdx.x;
    s[t] = data[blockIdx.x * 128 + t];
    warp.sync();
    int mine = s[t ^ 1];
    warp.sync();
    s[t] = mine;
    block.sync();
    data[blockIdx.x * 128 + t] = s[127 - t];
}
