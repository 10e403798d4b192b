//expect: race

// Twin of pinnedArgRelation.cu: the host passes `threads - 2` for `n`, so the last
// two threads of the block both write `*overflow`.
#include <cuda_runtime.h>

__global__ void fill_squares(int *buf, int *overflow, int n)
{
    int t = threadIdx.x;
    if (t < n) {
        buf[t] = t * t;
    } else {
        *overflow = t;                          //~ race(overflow)
    }
}

int main(int argc, char **argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : 256;
    int *d_buf, *d_overflow;
    cudaMalloc(&d_buf, threads * sizeof(int));
    cudaMalloc(&d_overflow, sizeof(int));
    fill_squares<<<1, threads>>>(d_buf, d_overflow, threads - 2);
    cudaDeviceSynchronize();
    return 0;
}
