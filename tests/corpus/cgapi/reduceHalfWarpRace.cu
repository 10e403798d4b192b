//pass
//expect: race

// A tile of 16 threads reduces over half a warp: the two halves of a warp get
// different results and both store into the warp's slot.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

__global__ void half_sums(int *out, const int *flags)
{
    __shared__ int per_warp[8];
    cg::thread_block block = cg::this_thread_block();
    auto half = cg::tiled_partition<16>(block);
    int f = flags[blockIdx.x * 256 + threadIdx.x];
    per_warp[threadIdx.x / 32] = cg::reduce(half, f, cg::plus<int>()); //~ race(per_warp)
    block.sync();
    if (threadIdx.x < 8) {
        out[blockIdx.x * 8 + threadIdx.x] = per_warp[threadIdx.x];
    }
}

int main()
{
    int *out, *flags;
    half_sums<<<16, 256>>>(out, flags);
    return 0;
}
