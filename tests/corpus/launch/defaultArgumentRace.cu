//expect: race

// Twin of defaultArgument.cu whose default is 512: the call without the argument
// launches 512 threads for 256-element blocks, and block b's upper half writes
// block b + 1's elements.
#include <cuda_runtime.h>

#define ELEMS_PER_BLOCK 256

__global__ void saxpy(float alpha, const float *x, float *y)
{
    int i = blockIdx.x * ELEMS_PER_BLOCK + threadIdx.x;
    y[i] = alpha * x[i] + y[i];                 //~ race(y)
}

void launch_saxpy(float alpha, const float *d_x, float *d_y, int n, int threads = 512)
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
