//expect: verified

// Race-free only because of its launch: `block_sums<<<(n + B - 1) / B, B>>>(..., n)`
// gives blocks of B threads (the kernel steps blocks by the constant B and sizes
// `acc` by it) and exactly ceil(n / B) blocks, so no block's `partial[blockIdx.x]`
// is the count slot `partial[(n + B - 1) / B]` that block 0 writes. With
// `--launch symbolic` blocks can be wider than B, or there can be one block too many.
#include <cuda_runtime.h>

#define B 128

__global__ void block_sums(const int *in, int *partial, int n)
{
    __shared__ int acc[B];
    unsigned t = threadIdx.x;
    unsigned i = blockIdx.x * B + t;
    acc[t] = i < n ? in[i] : 0;
    __syncthreads();
    if (t == 0) {
        int s = 0;
        for (int k = 0; k < B; ++k) {
            s += acc[k];
        }
        partial[blockIdx.x] = s;
        if (blockIdx.x == 0) {
            partial[(n + B - 1) / B] = n;
        }
    }
}

void sums(const int *d_in, int *d_partial, int n)
{
    block_sums<<<(n + B - 1) / B, B>>>(d_in, d_partial, n);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 100000;
    int *d_in, *d_partial;
    cudaMalloc(&d_in, n * sizeof(int));
    cudaMalloc(&d_partial, ((n + B - 1) / B + 1) * sizeof(int));
    sums(d_in, d_partial, n);
    cudaDeviceSynchronize();
    return 0;
}
