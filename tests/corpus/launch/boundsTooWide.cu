//expect: race

// Twin of boundsFit.cu: `__launch_bounds__(512)` allows blocks of 512 threads.
// Threads t and t + 256 write the same slot of `stage`, and the blocks' slices of
// `out` (256 apart) overlap.
#include <cuda_runtime.h>

// No launch in this file: the kernel is launched from another translation unit.

__global__ void __launch_bounds__(512) pair_sums(const float *in, float *out)
{
    __shared__ float stage[256];
    unsigned t = threadIdx.x;
    unsigned base = blockIdx.x * 256;
    stage[t % 256] = in[base + t];              //~ race(stage)
    __syncthreads();
    out[base + t] += stage[t % 256] * stage[(t + 1) % 256];  //~ race(out)
}
