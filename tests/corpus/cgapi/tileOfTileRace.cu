//pass
//expect: race

// Twin of tileOfTile.cu: the slot forgets the warp, so the groups of different warps
// (whose `meta_group_rank()` in their warp is the same) write the same slot.
#include <cooperative_groups.h>
using namespace cooperative_groups;

__device__ int slot_of(thread_block_tile<32> w, thread_block_tile<4> q)
{
    return q.meta_group_rank();
}

__global__ void quads(int *table, const int *in)
{
    __shared__ int slots[64];
    thread_block block = this_thread_block();
    thread_block_tile<32> w = tiled_partition<32>(block);
    auto q = tiled_partition<4>(w);
    if (q.thread_rank() == 0) {
        slots[slot_of(w, q)] = in[blockIdx.x * 256 + block.thread_rank()]; //~ race(slots)
    }
    block.sync();
    if (block.thread_rank() < 64) {
        table[blockIdx.x * 64 + block.thread_rank()] = slots[block.thread_rank()];
    }
}

int main()
{
    int *table, *in;
    quads<<<16, 256>>>(table, in);
    return 0;
}
