//expect: race

// A namespace-scope initializer also calls `run` (with 256 threads): the calls in
// functions are not all the callers.
#include <cuda_runtime.h>
template <int W>
__global__ void ring(int *out)
{
    __shared__ int s[W];
    s[threadIdx.x % W] = threadIdx.x;  //~ race(s)
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[(threadIdx.x + 1) % W];
}
void run(int *d, int bs) { ring<64><<<4, bs>>>(d); }
static int warmed = [] {
    int *p;
    cudaMalloc(&p, 4096 * sizeof(int));
    run(p, 256);
    return 0;
}();
int main()
{
    int *d;
    cudaMalloc(&d, 4096 * sizeof(int));
    run(d, 64);
    return 0;
}
