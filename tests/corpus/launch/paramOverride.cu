//expect: verified

// The launcher overrides its `threads` parameter before it launches (`threads = 128;`,
// a plain assignment of the body's top block): the launch has 128 threads per block
// whatever the caller passes, and the 128-slot staging ring is each thread's own.
#include <cuda_runtime.h>

__global__ void shift_left(float *v)
{
    __shared__ float ring[128];
    unsigned t = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + t;
    ring[t % 128] = v[i];
    __syncthreads();
    v[i] = ring[(t + 1) % 128];
}

void shift_all(float *v, int n, int threads)
{
    threads = 128;
    int blocks = n / threads;
    shift_left<<<blocks, threads>>>(v);
}

int main()
{
    float *v;
    cudaMalloc(&v, 4096 * sizeof(float));
    shift_all(v, 4096, 512);
    cudaDeviceSynchronize();
    return 0;
}
