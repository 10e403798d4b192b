//expect: verified

// A grid-stride loop launched with a fixed block (256 threads) and a grid the host
// computes at run time (from the number of multiprocessors). The stride is a
// signed `int`; the grid's width `256 * gridDim.x` is assumed below 2^31 like any
// grid index (deviation "grid width below 2^31"), so each thread's elements are
// its own.
#include <cuda_runtime.h>

__global__ void scale(float *a, int n)
{
    int stride = blockDim.x * gridDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        a[i] = a[i] * 2.0f;
    }
}

int main()
{
    int n = 1 << 20;
    float *d_a;
    cudaMalloc(&d_a, n * sizeof(float));
    int sms = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    scale<<<sms * 4, 256>>>(d_a, n);
    cudaDeviceSynchronize();
    return 0;
}
