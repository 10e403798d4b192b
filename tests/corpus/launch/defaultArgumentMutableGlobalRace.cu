//expect: race

// The default argument names a global that main sets to 256 before the call: the
// default's value is the global's at the call, not its initializer.
#include <cuda_runtime.h>
#include <utility>
template <int W> __global__ void ring(int *out) {
  __shared__ int s[W];
  s[threadIdx.x % W] = threadIdx.x;  //~ race(s)
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = s[(threadIdx.x + 1) % W];
}
int g = 64;
void launch(int *d, int threads = g) { ring<64><<<4, threads>>>(d); }
int main() { int *d; cudaMalloc(&d, 4096*4); g = 256; launch(d); return 0; }
