//expect: race

// Twin of gridStrideFixedBlock.cu whose stride forgets the grid: `blockDim.x`
// alone, so thread t of block 1 and thread t of block 0 meet on a[256 + t].
#include <cuda_runtime.h>

__global__ void scale(float *a, int n)
{
    int stride = blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        a[i] = a[i] * 2.0f;                     //~ race(a)
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
