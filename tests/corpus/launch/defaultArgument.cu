//expect: verified

// Block b scales the 256 elements [256 b, 256 b + 256): right only for blocks of at
// most 256 threads. The launch helper takes the block size as a default argument
// (`int threads = 256`); main calls it once without it and once with 128, which are
// two launch contexts, 256 and 128 threads.
#include <cuda_runtime.h>

#define ELEMS_PER_BLOCK 256

__global__ void saxpy(float alpha, const float *x, float *y)
{
    int i = blockIdx.x * ELEMS_PER_BLOCK + threadIdx.x;
    y[i] = alpha * x[i] + y[i];
}

void launch_saxpy(float alpha, const float *d_x, float *d_y, int n, int threads = 256)
{
    saxpy<<<n / ELEMS_PER_BLOCK, threads>>>(alpha, d_x, d_y);
}

int main()
{
    const int n = 1 << 20;
    float *d_x, *d_y;
    cudaMalloc(&d_x, n * sizeof(float));
    cudaMalloc(&d_y, n * sizeof(float));
    launch_saxpy(2.0f, d_x, d_y, n);
    launch_saxpy(0.5f, d_x, d_y, n, 128);
    cudaDeviceSynchronize();
    return 0;
}
