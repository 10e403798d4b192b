//expect: race

// A host template's parameter `BS` (64 by default) shadows the global `BS` (256): the
// launch is `ring<64>` with 256 threads.
#include <cuda_runtime.h>
template <int W>
__global__ void ring(int *out)
{
    __shared__ int s[W];
    s[threadIdx.x % W] = threadIdx.x;  //~ race(s)
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[(threadIdx.x + 1) % W];
}

const int BS = 256;
template <int BS = 64>
void run(int *d) { ring<BS><<<4, 256>>>(d); }
int main() { int *d; cudaMalloc(&d, 4096 * sizeof(int)); run(d); return 0; }
