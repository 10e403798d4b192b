//--gridDim=8
//expect: race

// Twin of negStrideBelow: m < 1 allows m = 0, where every thread writes A[0].
__global__ void negStrideZero(float *A, int m)
{
    __requires(m < 1);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    A[i * (-m)] = threadIdx.x; //~ race(A)
}
