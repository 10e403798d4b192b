//expect: verified

// Race-free only because of its launch: the host code launches the kernel with a
// single block, and each thread owns the counter `counts[threadIdx.x]`. With
// `--launch symbolic` (any number of blocks) the blocks race on `counts`.
#include <cuda_runtime.h>

__global__ void count_odd(const int *keys, int *counts, int n)
{
    int t = threadIdx.x;
    int c = 0;
    for (int i = t; i < n; i += blockDim.x) {
        c += keys[i] & 1;
    }
    counts[t] = c;
}

int main()
{
    const int n = 1 << 16;
    int *d_keys, *d_counts;
    cudaMalloc(&d_keys, n * sizeof(int));
    cudaMalloc(&d_counts, 128 * sizeof(int));
    count_odd<<<1, 128>>>(d_keys, d_counts, n);
    cudaDeviceSynchronize();
    cudaFree(d_keys);
    cudaFree(d_counts);
    return 0;
}
