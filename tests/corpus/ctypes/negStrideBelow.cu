//--gridDim=8
//expect: verified

// With m < -1 the stride -m is at least 2: the threads write distinct elements.
__global__ void negStrideBelow(float *A, int m)
{
    __requires(m < -1);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    A[i * (-m)] = 1.0f;
}
