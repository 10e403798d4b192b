//expect: race

// hostOverloadArity.cu where the three-argument overload is called with 256 threads
// per block: threads `t` and `t + 128` write the same ring slot.
#include <cuda_runtime.h>

__global__ void rotate(int *data)
{
    __shared__ int ring[128];
    unsigned t = threadIdx.x;
    ring[t % 128] = data[blockIdx.x * blockDim.x + t]; //~ race(ring)
    __syncthreads();
    data[blockIdx.x * blockDim.x + t] = ring[(t + 1) % blockDim.x];
}

void stage(int block)
{
    int *d;
    cudaMalloc(&d, 64 * block * sizeof(int));
    rotate<<<64, block>>>(d);
}

void stage(int *d, int rows, int block)
{
    rotate<<<rows, block>>>(d);
}

int main()
{
    int sizes[] = {64, 128};
    for (int j = 0; j < 2; j++)
        stage(sizes[j]);
    int *d;
    cudaMalloc(&d, 16 * 256 * sizeof(int));
    stage(d, 16, 256);
    cudaDeviceSynchronize();
    return 0;
}
