//pass
//expect: race

// Twin of reduceCount.cu: the slot forgets the block, so the warps of different
// blocks, whose counts differ, write the same slots.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

__device__ int count_positive(cg::thread_block_tile<32> tile, const int *v)
{
    int mine = v[tile.meta_group_rank() * 32 + tile.thread_rank()] > 0;
    return cg::reduce(tile, mine, cg::plus<int>());
}

__global__ void counts(int *per_warp, const int *v)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    int c = count_positive(tile, v + blockIdx.x * 128);
    per_warp[tile.meta_group_rank()] = c; //~ race(per_warp)
}

int main()
{
    int *per_warp, *v;
    counts<<<32, 128>>>(per_warp, v);
    return 0;
}
