//expect: race

// rangeForTable.cu with 256 among the table's sizes: in that launch context threads
// `t` and `t + 128` write the same ring slot.
#include <cuda_runtime.h>

__global__ void rotate(int *data)
{
    __shared__ int ring[128];
    unsigned t = threadIdx.x;
    ring[t % 128] = data[blockIdx.x * blockDim.x + t]; //~ race(ring)
    __syncthreads();
    data[blockIdx.x * blockDim.x + t] = ring[(t + 1) % blockDim.x];
}

int main()
{
    int *d0;
    cudaMalloc(&d0, 64 * 256 * sizeof(int));
    int sizes[] = {64, 128, 256};
    int bs = 512;
    for (int bs : sizes)
        rotate<<<64, bs>>>(d0);
    (void)bs;
    cudaDeviceSynchronize();
    return 0;
}
