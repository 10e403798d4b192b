//--blockDim=32 --gridDim=1
//expect: verified

#include <cooperative_groups.h>
namespace cg = cooperative_groups;

namespace util {
__device__ void sync(float *buf, float v) { buf[threadIdx.x] = v; }
}

// The file's util::sync beside the real cg::sync: each call finds its own function.
__global__ void rotate(const float *in, float *out)
{
    __shared__ float buf[32];
    cg::thread_block block = cg::this_thread_block();
    util::sync(buf, in[threadIdx.x]);
    cg::sync(block);
    out[threadIdx.x] = buf[(threadIdx.x + 1) % 32];
}
