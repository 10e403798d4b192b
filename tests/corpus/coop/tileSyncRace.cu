//pass
//--blockDim=128 --gridDim=8
//expect: race

// Twin of tileSync.cu: the partner lane is 32 threads away, in another warp,
// which a tile sync does not order.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void butterfly(int *data)
{
    __shared__ int s[128];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    unsigned t = threadIdx.x;
    s[t] = data[blockIdx.x * 128 + t]; //~ race(s)
    warp.sync();
    int mine = s[t ^ 32];              //~ race(s)
    warp.sync();
    s[t] = mine;                       //~ race(s)
    block.sync();
    data[blockIdx.x * 128 + t] = s[127 - t];
}
