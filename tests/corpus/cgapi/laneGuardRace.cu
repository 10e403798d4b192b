//pass
//expect: race

// Twin of warpRows.cu: the guard tests the rank in the block instead of the lane:
// `block.thread_rank() < 32` lets the 32 lanes of warp 0 all write their row's
// result, each its own value.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void row_first(float *first, const float *in, int rows, int cols)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int row = blockIdx.x * warp.meta_group_size() + warp.meta_group_rank();
    if (row >= rows) return;
    if (block.thread_rank() < 32) {
        first[row] = in[row * cols + warp.thread_rank()]; //~ race(first)
    }
}

int main()
{
    float *first, *in;
    row_first<<<512, 128>>>(first, in, 2048, 64);
    return 0;
}
