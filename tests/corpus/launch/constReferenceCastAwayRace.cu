//expect: race

// `widen` takes the block size by `const &` and writes it through `const_cast`
// (defined: the local is not const), so the launch has 256 threads.
#include <cuda_runtime.h>
template <int W>
__global__ void ring(int *out)
{
    __shared__ int s[W];
    s[threadIdx.x % W] = threadIdx.x;  //~ race(s)
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[(threadIdx.x + 1) % W];
}
static void widen(const int &n) { const_cast<int &>(n) = 256; }
int main()
{
    int *d; cudaMalloc(&d, 4096 * sizeof(int));
    int bs = 64;
    widen(bs);
    ring<64><<<4, bs>>>(d);
    return 0;
}
