//expect: verified

// Race-free only because of `__launch_bounds__(256)`: the file has no launch, and the
// bound says a block has at most 256 threads, so `stage[t % 256]` and
// `out[base + t]` are one thread's own. The bound holds with `--launch symbolic`
// too (it is part of the kernel), so that verifies as well; without the bound (or
// with a bound of 512, boundsTooWide.cu) thread t + 256 writes the slot of thread t.
#include <cuda_runtime.h>

// No launch in this file: the kernel is launched from another translation unit.

__global__ void __launch_bounds__(256) pair_sums(const float *in, float *out)
{
    __shared__ float stage[256];
    unsigned t = threadIdx.x;
    unsigned base = blockIdx.x * 256;
    stage[t % 256] = in[base + t];
    __syncthreads();
    out[base + t] += stage[t % 256] * stage[(t + 1) % 256];
}
