//--blockDim=64 --gridDim=2
//expect: verified

// n / d is the same in every thread even when d = 0: the barrier is uniform.
__global__ void divZeroUniform(float *A, int n, int d)
{
    __shared__ float s[64];
    s[threadIdx.x] = A[blockIdx.x * 64 + threadIdx.x];
    if (n / d == 2)
        __syncthreads();
    else
        return;
    A[blockIdx.x * 64 + threadIdx.x] = s[63 - threadIdx.x];
}
