//expect: verified

// Two host functions named `stage` launch the kernel: the one-argument overload with
// the table's block sizes (64 or 128), the three-argument one with 32. A call picks
// its overload by its number of arguments, so each overload's launch is checked for
// its own callers only, and every block size divides the 128-slot ring.
#include <cuda_runtime.h>

__global__ void rotate(int *data)
{
    __shared__ int ring[128];
    unsigned t = threadIdx.x;
    ring[t % 128] = data[blockIdx.x * blockDim.x + t];
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
    cudaMalloc(&d, 16 * 32 * sizeof(int));
    stage(d, 16, 32);
    cudaDeviceSynchronize();
    return 0;
}
