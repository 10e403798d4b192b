//expect: verified

// Race-free only because of its launch: the block size `threads` is read at run
// time, but the host passes the same value for `n`, so blockDim.x == n: every
// thread has an element of `buf`, and no thread takes the `else` branch, where the
// threads past `n` would all write `*overflow`. With `--launch symbolic` the block
// can be larger than `n + 1`.
#include <cuda_runtime.h>

__global__ void fill_squares(int *buf, int *overflow, int n)
{
    int t = threadIdx.x;
    if (t < n) {
        buf[t] = t * t;
    } else {
        *overflow = t;
    }
}

int main(int argc, char **argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : 256;
    int *d_buf, *d_overflow;
    cudaMalloc(&d_buf, threads * sizeof(int));
    cudaMalloc(&d_overflow, sizeof(int));
    fill_squares<<<1, threads>>>(d_buf, d_overflow, threads);
    cudaDeviceSynchronize();
    return 0;
}
