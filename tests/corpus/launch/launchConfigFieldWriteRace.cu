//expect: race

// The configuration's `blockDim.x` is written after `blockDim`: the launch has 256
// threads.
#include <cuda_runtime.h>
template <int W>
__global__ void ring(int *out)
{
    __shared__ int s[W];
    s[threadIdx.x % W] = threadIdx.x;  //~ race(s)
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[(threadIdx.x + 1) % W];
}
int main()
{
    int *d;
    cudaMalloc(&d, 4096 * sizeof(int));
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(4);
    cfg.blockDim = dim3(64);
    cfg.blockDim.x = 256;
    cudaLaunchKernelEx(&cfg, ring<64>, d);
    return 0;
}
