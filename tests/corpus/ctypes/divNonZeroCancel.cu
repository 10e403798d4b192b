//--gridDim=16
//expect: verified

// Twin of divZeroCancel with d != 0: i * d / d is i.
__global__ void divNonZeroCancel(float *A, int d)
{
    __requires(d != 0);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    A[i * d / d] = 1.0f;
}
