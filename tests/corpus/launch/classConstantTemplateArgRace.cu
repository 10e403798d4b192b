//expect: race

// `ring<P::W>` is the class's constant 64, not the namespace's `W` (256): 256 threads
// race on the 64-cell ring.
#include <cuda_runtime.h>
#include <utility>
template <int W> __global__ void ring(int *out) {
  __shared__ int s[W];
  s[threadIdx.x % W] = threadIdx.x;  //~ race(s)
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = s[(threadIdx.x + 1) % W];
}
constexpr int W = 256;
struct P { static constexpr int W = 64; };
int main() { int *d; cudaMalloc(&d, 4096*4); ring<P::W><<<4, 256>>>(d); return 0; }
