//--gridDim=16
//expect: race

// i * d / d is i only when d != 0; for d = 0 it is 0 / 0, one unknown value for all threads.
__global__ void divZeroCancel(float *A, int d)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    A[i * d / d] = threadIdx.x; //~ race(A)
}
