//pass
//expect: verified

// Two copies in flight at once: wait_prior<1> completes the older (and synchronizes the
// block), so the first buffer may be read while the second is still arriving; wait then
// completes the second.
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
namespace cg = cooperative_groups;

__global__ void twoHalves(const float *a, const float *b, float *out)
{
    __shared__ float first[128];
    __shared__ float second[128];
    auto block = cg::this_thread_block();
    unsigned t = block.thread_rank();
    cg::memcpy_async(block, first, a + blockIdx.x * 128, sizeof(float) * 128);
    cg::memcpy_async(block, second, b + blockIdx.x * 128, sizeof(float) * 128);
    cg::wait_prior<1>(block);
    float x = first[127 - t];
    cg::wait(block);
    out[blockIdx.x * 128 + t] = x + second[(t + 1) % 128];
}

int main()
{
    float *a, *b, *out;
    twoHalves<<<4, 128>>>(a, b, out);
    return 0;
}
