//expect: race

// The launch is in a lambda called after `t.x = 256`: the assignment after the
// launch's text reaches it.
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
    int *d; cudaMalloc(&d, 4096 * sizeof(int));
    dim3 t(64);
    auto go = [&] { ring<64><<<4, t>>>(d); };
    t.x = 256;
    go();
    return 0;
}
