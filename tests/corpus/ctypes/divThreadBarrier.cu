//--blockDim=64 --gridDim=2
//expect: divergence

// Twin of divZeroUniform dividing threadIdx.x: with d = 1 only thread 2 reaches the barrier.
__global__ void divThreadBarrier(float *A, int n, int d)
{
    __shared__ float s[64];
    s[threadIdx.x] = A[blockIdx.x * 64 + threadIdx.x]; //~ race(s)
    if ((int)threadIdx.x / d == 2)
        __syncthreads(); //~ divergence
    else
        return;
    A[blockIdx.x * 64 + threadIdx.x] = s[63 - threadIdx.x]; //~ race(s)
}
