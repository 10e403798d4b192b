//--blockDim=128 --gridDim=1
//expect: verified

// Twin of narrowLoopUchar: p = 4t + r fits in an `unsigned short`.
__global__ void narrowLoopUshort(float *A)
{
    __shared__ float s[512];
    for (int r = 0; r < 4; ++r) {
        unsigned short p = threadIdx.x * 4 + r;
        s[p] = A[threadIdx.x * 4 + r];
    }
    __syncthreads();
    A[threadIdx.x] = s[threadIdx.x];
}
