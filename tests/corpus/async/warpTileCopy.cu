//pass
//expect: verified

// Each warp copies its own 32 elements with a collective copy of its tile and waits for
// it (the tile's wait synchronizes the warp): lanes then read their neighbours'
// elements, all inside the warp's part of the buffer.
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
namespace cg = cooperative_groups;

__global__ void warpRotate(const int *in, int *out)
{
    __shared__ int buf[128];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int base = warp.meta_group_rank() * 32;
    cg::memcpy_async(warp, buf + base, in + blockIdx.x * 128 + base, 32 * sizeof(int));
    cg::wait(warp);
    out[blockIdx.x * 128 + threadIdx.x] = buf[base + (warp.thread_rank() + 1) % 32];
}

int main()
{
    int *in, *out;
    warpRotate<<<2, 128>>>(in, out);
    return 0;
}
