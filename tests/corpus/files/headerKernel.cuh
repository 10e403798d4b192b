// The kernels of headerKernel.cu, in the project's own header.
#pragma once

template <int N>
__global__ void rotate(int *a)
{
    __shared__ int s[N];
    s[threadIdx.x] = a[blockIdx.x * N + threadIdx.x];
    __syncthreads();
    a[blockIdx.x * N + threadIdx.x] = s[(threadIdx.x + 1) % N];
}

// Never launched by headerKernel.cu: not checked there.
__global__ void unusedHere(int *a)
{
    a[0] = threadIdx.x;
}
