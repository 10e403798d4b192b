//expect: race

// Twin of warpRowsGridStride.cu whose warps start at `blockIdx.x * meta_group_size()`
// without their rank in the block: the two warps of a block take the same rows.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void scale_rows_shared_start(float *out, const float *in, const float *factor, int rows, int C)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int first = blockIdx.x * warp.meta_group_size();
    int warps_in_grid = gridDim.x * warp.meta_group_size();
    for (int row = first; row < rows; row += warps_in_grid) {
        float f = factor[row];
        for (int i = warp.thread_rank(); i < C; i += warp.size()) {
            out[row * C + i] = out[row * C + i] + in[row * C + i] * f; //~ race(out)
        }
    }
}

int device_blocks;

void launch_scale_rows(float *out, const float *in, const float *factor, int rows, int C)
{
    scale_rows_shared_start<<<device_blocks, 64>>>(out, in, factor, rows, C);
}
