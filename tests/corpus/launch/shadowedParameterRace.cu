//expect: race

// An inner block's `bs` (256) shadows the parameter `bs` (64 from the caller).
#include <cuda_runtime.h>
template <int W>
__global__ void ring(int *out)
{
    __shared__ int s[W];
    s[threadIdx.x % W] = threadIdx.x;  //~ race(s)
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[(threadIdx.x + 1) % W];
}

void run(int *d, int bs)
{
    {
        int bs = 256;
        ring<64><<<4, bs>>>(d);
    }
}
int main() { int *d; cudaMalloc(&d, 4096 * sizeof(int)); run(d, 64); return 0; }
