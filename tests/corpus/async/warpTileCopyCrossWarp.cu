//pass
//expect: race

// The twin of warpTileCopy.cu whose lanes read the next warp's elements: a warp's wait
// synchronizes only the warp, and the other warp's copy may still be writing them.
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
namespace cg = cooperative_groups;

__global__ void warpRotateAcross(const int *in, int *out)
{
    __shared__ int buf[128];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int base = warp.meta_group_rank() * 32;
    cg::memcpy_async(warp, buf + base, in + blockIdx.x * 128 + base, 32 * sizeof(int)); //~ race(buf)
    cg::wait(warp);
    out[blockIdx.x * 128 + threadIdx.x] = buf[(base + 32 + warp.thread_rank()) % 128];  //~ race(buf)
}

int main()
{
    int *in, *out;
    warpRotateAcross<<<2, 128>>>(in, out);
    return 0;
}
