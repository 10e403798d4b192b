//expect: verified

// The block sizes come from a range-`for` loop over a table (`for (int bs : sizes)`):
// one launch context per element, 64 and 128, both of which divide the 128-slot ring.
// An outer `bs` of 512 is shadowed by the loop's.
#include <cuda_runtime.h>

__global__ void rotate(int *data)
{
    __shared__ int ring[128];
    unsigned t = threadIdx.x;
    ring[t % 128] = data[blockIdx.x * blockDim.x + t];
    __syncthreads();
    data[blockIdx.x * blockDim.x + t] = ring[(t + 1) % blockDim.x];
}

int main()
{
    int *d0;
    cudaMalloc(&d0, 64 * 128 * sizeof(int));
    int sizes[] = {64, 128};
    int bs = 512;
    for (int bs : sizes)
        rotate<<<64, bs>>>(d0);
    (void)bs;
    cudaDeviceSynchronize();
    return 0;
}
