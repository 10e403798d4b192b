//expect: verified
//expect-tool: race (false alarm: `__launch_bounds__` bounds each block size, not their product)

// No launch in the file: only `__launch_bounds__(256)` says how the kernel runs. A
// block has at most 256 threads in all, so the flat thread index `t` is below 256
// and `stage[t % 256]` is each thread's own, whatever the block's shape. autosync
// bounds blockDim.x, .y and .z by 256 each but not their product (an
// over-approximation, said in oracle/src/verifier/encode.rs), and reports a block of
// more than 256 threads.
#include <cuda_runtime.h>

__global__ void __launch_bounds__(256) flat_stage(const float *in, float *sum)
{
    __shared__ float stage[256];
    unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    stage[t % 256] = in[t];                     //~? race(stage)
    __syncthreads();
    if (t == 0) {
        atomicAdd(sum, stage[0] + stage[255]);
    }
}
