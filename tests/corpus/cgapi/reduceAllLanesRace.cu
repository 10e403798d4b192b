//pass
//expect: race

// Twin of reduceAllLanes.cu: the lanes add their own rank to the warp's result, so
// they store different values into the warp's slot.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

__global__ void block_sum(float *total, const float *x, int n)
{
    __shared__ float partial[32];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? x[i] : 0.0f;
    partial[warp.meta_group_rank()] = cg::reduce(warp, v, cg::plus<float>()) + warp.thread_rank(); //~ race(partial)
    block.sync();
    if (warp.meta_group_rank() == 0) {
        float s = warp.thread_rank() < warp.meta_group_size() ? partial[warp.thread_rank()] : 0.0f;
        total[blockIdx.x] = cg::reduce(warp, s, cg::plus<float>());
    }
}

int main()
{
    float *total, *x;
    block_sum<<<64, 256>>>(total, x, 64 * 256);
    return 0;
}
