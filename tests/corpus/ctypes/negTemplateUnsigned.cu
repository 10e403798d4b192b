//--blockDim=32 --gridDim=4
//expect: verified

template <typename T> __device__ void storeSign(int *A, T m, unsigned i)
{
    if (m < 0)
        A[blockIdx.x] = i;
    else
        A[i] = 0;
}

// The template instantiated with `unsigned`: m < 0 is false.
__global__ void negTemplateUnsigned(int *A, unsigned m)
{
    storeSign<unsigned>(A, m, blockIdx.x * blockDim.x + threadIdx.x + 4);
}
