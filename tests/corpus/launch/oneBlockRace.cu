//expect: race
//expect-unfixable

// Twin of oneBlock.cu: the host sizes the grid from `n`, so `count_odd` runs with
// (n + 127) / 128 blocks, and the blocks all write `counts[0..128)`.
#include <cuda_runtime.h>

__global__ void count_odd(const int *keys, int *counts, int n)
{
    int t = threadIdx.x;
    int c = 0;
    for (int i = t; i < n; i += blockDim.x) {
        c += keys[i] & 1;
    }
    counts[t] = c;                              //~ race(counts)
}

void count(const int *d_keys, int *d_counts, int n)
{
    count_odd<<<(n + 127) / 128, 128>>>(d_keys, d_counts, n);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 4096;
    int *d_keys, *d_counts;
    cudaMalloc(&d_keys, n * sizeof(int));
    cudaMalloc(&d_counts, 128 * sizeof(int));
    count(d_keys, d_counts, n);
    cudaDeviceSynchronize();
    return 0;
}
