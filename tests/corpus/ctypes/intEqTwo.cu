//--blockDim=128 --gridDim=2
//expect: race

// Twin of boolEqTwo: an `int` flag can be 2; the threads of a block share A[blockIdx.x].
__global__ void intEqTwo(float *A, int flag)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (flag == 2)
        A[blockIdx.x] = threadIdx.x; //~ race(A)
    else
        A[i + 2] = 1.0f;
}
