//--blockDim=64 --gridDim=2
//expect: verified

// Twin of mixedDivergeUnsigned: compared as `long long`, every thread reaches the barrier.
__global__ void mixedDivergeWide(float *A)
{
    __shared__ float s[64];
    int d = (int)threadIdx.x - 2;
    s[threadIdx.x] = A[blockIdx.x * 64 + threadIdx.x];
    if ((long long)d < blockDim.x)
        __syncthreads();
    A[blockIdx.x * 64 + threadIdx.x] = s[63 - threadIdx.x];
}
