//--blockDim=128 --gridDim=2
//expect: race

// flag + flag is an `int`: 2 when flag is true.
__global__ void boolSumTwo(float *A, bool flag)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (flag + flag == 2)
        A[blockIdx.x] = threadIdx.x; //~ race(A)
    else
        A[i + 2] = 1.0f;
}
