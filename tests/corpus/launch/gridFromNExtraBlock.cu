//expect: race
//expect-unfixable

// Twin of gridFromN.cu: the host rounds up with `n / B + 1` blocks, one block too
// many when B divides n: block n / B writes `partial[n / B]`, the count slot block
// 0 writes.
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
        partial[blockIdx.x] = s;                //~ race(partial)
        if (blockIdx.x == 0) {
            partial[(n + B - 1) / B] = n;       //~ race(partial)
        }
    }
}

void sums(const int *d_in, int *d_partial, int n)
{
    block_sums<<<n / B + 1, B>>>(d_in, d_partial, n);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 100000;
    int *d_in, *d_partial;
    cudaMalloc(&d_in, n * sizeof(int));
    cudaMalloc(&d_partial, (n / B + 2) * sizeof(int));
    sums(d_in, d_partial, n);
    cudaDeviceSynchronize();
    return 0;
}
