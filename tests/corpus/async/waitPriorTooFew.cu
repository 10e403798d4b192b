//pass
//expect: race

// The twin of waitPriorTwoBuffers.cu that reads the second buffer after wait_prior<1>:
// only the older copy is complete, the second may still be arriving.
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
namespace cg = cooperative_groups;

__global__ void twoHalvesEarly(const float *a, const float *b, float *out)
{
    __shared__ float first[128];
    __shared__ float second[128];
    auto block = cg::this_thread_block();
    unsigned t = block.thread_rank();
    cg::memcpy_async(block, first, a + blockIdx.x * 128, sizeof(float) * 128);
    cg::memcpy_async(block, second, b + blockIdx.x * 128, sizeof(float) * 128); //~ race(second)
    cg::wait_prior<1>(block);
    float x = first[127 - t] + second[(t + 1) % 128];                          //~ race(second)
    cg::wait(block);
    out[blockIdx.x * 128 + t] = x;
}

int main()
{
    float *a, *b, *out;
    twoHalvesEarly<<<4, 128>>>(a, b, out);
    return 0;
}
