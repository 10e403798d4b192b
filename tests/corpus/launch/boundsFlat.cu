//expect: verified

// No launch in the file: only `__launch_bounds__(256)` says how the kernel runs. A
// block has at most 256 threads in all, so the flat thread index `t` is below 256
// and `stage[t % 256]` is each thread's own, whatever the block's shape. The bound
// on the product blockDim.x * blockDim.y * blockDim.z is nonlinear: a query adds it
// when its model breaks it (oracle/src/verifier/encode.rs, `block_size_limit`).
#include <cuda_runtime.h>

__global__ void __launch_bounds__(256) flat_stage(const float *in, float *sum)
{
    __shared__ float stage[256];
    unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    stage[t % 256] = in[t];
    __syncthreads();
    if (t == 0) {
        atomicAdd(sum, stage[0] + stage[255]);
    }
}
