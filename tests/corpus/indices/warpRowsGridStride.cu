//expect: verified

// One warp per row, rows taken grid-stride: the warp's index in the grid is
// `blockIdx.x * meta_group_size() + meta_group_rank()` and the stride
// `gridDim.x * meta_group_size()`, both `int`. The number of blocks is not known (it
// depends on the device), so these products are only known to fit in an `int` because
// a block's number of warps is at most its number of threads, and the grid has fewer
// than 2^31 threads (the verifier's grid-width assumption).
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void scale_rows(float *out, const float *in, const float *factor, int rows, int C)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int first = blockIdx.x * warp.meta_group_size() + warp.meta_group_rank();
    int warps_in_grid = gridDim.x * warp.meta_group_size();
    for (int row = first; row < rows; row += warps_in_grid) {
        float f = factor[row];
        for (int i = warp.thread_rank(); i < C; i += warp.size()) {
            out[row * C + i] = out[row * C + i] + in[row * C + i] * f;
        }
    }
}

int device_blocks;

void launch_scale_rows(float *out, const float *in, const float *factor, int rows, int C)
{
    scale_rows<<<device_blocks, 64>>>(out, in, factor, rows, C);
}
