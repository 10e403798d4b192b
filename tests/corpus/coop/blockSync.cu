//pass
//--blockDim=256 --gridDim=32
//expect: verified

// The three ways of synchronising a thread block with cooperative groups, each
// between a write of shared memory and reads of other threads' elements.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void stencil3(const float *in, float *out)
{
    __shared__ float s[258];
    cg::thread_block block = cg::this_thread_block();
    unsigned t = block.thread_rank();
    s[t + 1] = in[blockIdx.x * 256 + t];
    if (t == 0) {
        s[0] = 0.0f;
        s[257] = 0.0f;
    }
    block.sync();
    float v = s[t] + s[t + 1] + s[t + 2];
    cg::sync(block);
    s[t + 1] = v;
    cg::this_thread_block().sync();
    out[blockIdx.x * 256 + t] = s[256 - t];
}
