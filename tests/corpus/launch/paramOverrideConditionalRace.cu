//expect: race

// paramOverride.cu with the override under a condition that does not hold (`n` is
// 4096): the launch keeps the caller's 512 threads, and threads `t` and `t + 128`
// share a ring slot. The override stands alone under an `if`, whose condition is
// evaluated for the caller's values: the launch is checked with 512 threads.
#include <cuda_runtime.h>

__global__ void shift_left(float *v)
{
    __shared__ float ring[128];
    unsigned t = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + t;
    ring[t % 128] = v[i]; //~ race(ring)
    __syncthreads();
    v[i] = ring[(t + 1) % 128];
}

void shift_all(float *v, int n, int threads)
{
    if (n < 1000)
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
