//--blockDim=32 --gridDim=4
//expect: race

template <typename T> __device__ void storeSign(int *A, T m, unsigned i)
{
    if (m < 0)
        A[blockIdx.x] = i; //~ race(A)
    else
        A[i] = 0;
}

// The template instantiated with `int`: a negative m makes the threads of a block share A[blockIdx.x].
__global__ void negTemplateInt(int *A, int m)
{
    storeSign<int>(A, m, blockIdx.x * blockDim.x + threadIdx.x + 4);
}
