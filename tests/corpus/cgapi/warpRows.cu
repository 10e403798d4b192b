//pass
//expect: verified

// One warp per row: the row is the block's index times its number of warps plus
// the warp's index in the block, and the lanes stride over the row's columns. Lane 0
// of each warp writes the row's result; every lane writes its own columns.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void row_scale(float *out, float *first, const float *in, int rows, int cols)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int row = blockIdx.x * warp.meta_group_size() + warp.meta_group_rank();
    if (row >= rows) return;
    for (int c = warp.thread_rank(); c < cols; c += warp.size()) {
        out[row * cols + c] = 2.0f * in[row * cols + c];
    }
    if (warp.thread_rank() == 0) {
        first[row] = in[row * cols];
    }
}

int main()
{
    float *out, *first, *in;
    int rows = 4096, cols = 768;
    row_scale<<<rows * 32 / 256, 256>>>(out, first, in, rows, cols);
    return 0;
}
