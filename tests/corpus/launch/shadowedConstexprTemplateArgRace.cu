//expect: race

// The local `constexpr int W` (64, from a function the host reader does not evaluate)
// shadows the global `W` (256): the launch is `ring<64>` with 256 threads.
#include <cuda_runtime.h>
template <int W>
__global__ void ring(int *out)
{
    __shared__ int s[W];
    s[threadIdx.x % W] = threadIdx.x;  //~ race(s)
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[(threadIdx.x + 1) % W];
}
constexpr int pick(int x)
{
    if (x > 100)
        return 64;
    return 256;
}
const int W = 256;
int main()
{
    int *d; cudaMalloc(&d, 4096 * sizeof(int));
    constexpr int W = pick(512);
    ring<W><<<4, 256>>>(d);
    return 0;
}
