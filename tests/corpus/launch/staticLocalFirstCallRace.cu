//expect: race

// A `static const` local is initialized by the first call only (256): the second
// call's `n == 64` does not make it 64.
#include <cuda_runtime.h>
template <int W>
__global__ void ring(int *out)
{
    __shared__ int s[W];
    s[threadIdx.x % W] = threadIdx.x;  //~ race(s)
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[(threadIdx.x + 1) % W];
}
void run(int *d, int n)
{
    static const int bs = n;   // fixed by the first call
    if (n == 64)
        ring<64><<<4, bs>>>(d);
}
int main() { int *d; cudaMalloc(&d, 4096 * sizeof(int)); run(d, 256); run(d, 64); return 0; }
