//--blockDim=64 --gridDim=2
//expect: divergence

// `d < blockDim.x` compares as unsigned: for threads 0 and 1, d = -2 and -1 become huge
// and these threads skip the barrier (which then orders nothing).
__global__ void mixedDivergeUnsigned(float *A)
{
    __shared__ float s[64];
    int d = (int)threadIdx.x - 2;
    s[threadIdx.x] = A[blockIdx.x * 64 + threadIdx.x]; //~ race(s)
    if (d < blockDim.x)
        __syncthreads(); //~ divergence
    A[blockIdx.x * 64 + threadIdx.x] = s[63 - threadIdx.x]; //~ race(s)
}
