//--blockDim=128 --gridDim=2
//expect: verified

// A `bool` promotes to 0 or 1: flag == 2 is never true.
__global__ void boolEqTwo(float *A, bool flag)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (flag == 2)
        A[blockIdx.x] = 0.0f;
    else
        A[i + 2] = 1.0f;
}
