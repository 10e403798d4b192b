//expect: race

// Two overloads named `run`: the parameter `bs` of one is not the other's, so the
// outer call's condition says nothing of the inner launch's block size (256 by
// default).
#include <cuda_runtime.h>
template <int W>
__global__ void ring(int *out)
{
    __shared__ int s[W];
    s[threadIdx.x % W] = threadIdx.x;  //~ race(s)
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[(threadIdx.x + 1) % W];
}
void run(int *d, int n, int bs = 256)
{
    if (n == 64)
        ring<64><<<4, bs>>>(d);
}
void run(float *f, int *d, int bs)
{
    run(d, bs);
}
