//pass
//expect: race

// A `thread_group` first names the block, then a tile of 8 threads: its rank is the
// rank in the tile (0 to 7) when it is used, so threads 0 and 8 write one slot.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void ranks(int *out)
{
    __shared__ int s[256];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_group g = block;
    g = cg::tiled_partition(block, 8);
    s[g.thread_rank()] = threadIdx.x; //~ race(s)
    block.sync();
    out[blockIdx.x * 256 + threadIdx.x] = s[threadIdx.x];
}

int main()
{
    int *out;
    ranks<<<4, 256>>>(out);
    return 0;
}
