//pass
//expect: race

// Twin of warpRows.cu: the row forgets the block (`meta_group_rank()` alone), so the
// warps of different blocks write the same rows, each with its block's value.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void row_scale(float *out, float *first, const float *in, int rows, int cols)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int row = warp.meta_group_rank();
    if (row >= rows) return;
    for (int c = warp.thread_rank(); c < cols; c += warp.size()) {
        out[row * cols + c] = in[row * cols + c] + blockIdx.x; //~ race(out)
    }
    if (warp.thread_rank() == 0) {
        first[row] = in[row * cols] + blockIdx.x; //~ race(first)
    }
}

int main()
{
    float *out, *first, *in;
    int rows = 4096, cols = 768;
    row_scale<<<rows * 32 / 256, 256>>>(out, first, in, rows, cols);
    return 0;
}
