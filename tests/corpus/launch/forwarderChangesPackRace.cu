//expect: race

// The benchmark wrapper changes its pack (`a = 256`) before it calls the wrapped
// function: the block size the wrapped launch sees is not the caller's 64.
#include <cuda_runtime.h>
#include <utility>
template <int W> __global__ void ring(int *out) {
  __shared__ int s[W];
  s[threadIdx.x % W] = threadIdx.x;  //~ race(s)
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = s[(threadIdx.x + 1) % W];
}
template <class F, class... A> float bench(int reps, F f, A&&... a) { ((a = 256), ...); for (int i = 0; i < reps; i++) f(std::forward<A>(a)...); return 0; }
void run(int bs) { int *d; cudaMalloc(&d, 4096*4); ring<64><<<4, bs>>>(d); }
int main() { int bs = 64; bench(10, run, bs); return 0; }
