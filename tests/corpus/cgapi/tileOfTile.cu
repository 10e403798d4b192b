//pass
//expect: verified

// Tiles of tiles: each 32-thread warp is cut into 8 groups of 4; a group's index in
// its warp is `meta_group_rank()` of the small tile, and its first thread writes the
// group's slot of the block's table, `warp * 8 + group`.
#include <cooperative_groups.h>
using namespace cooperative_groups;

__device__ int slot_of(thread_block_tile<32> w, thread_block_tile<4> q)
{
    return w.meta_group_rank() * 8 + q.meta_group_rank();
}

__global__ void quads(int *table, const int *in)
{
    __shared__ int slots[64];
    thread_block block = this_thread_block();
    thread_block_tile<32> w = tiled_partition<32>(block);
    auto q = tiled_partition<4>(w);
    if (q.thread_rank() == 0) {
        slots[slot_of(w, q)] = in[blockIdx.x * 256 + block.thread_rank()];
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
