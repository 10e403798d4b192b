//--blockDim=64 --gridDim=1
//expect: verified

enum Op { Copy, Shift };

// op is one value for the launch: all threads write s[t] or all write s[t+1].
__global__ void enumUniformBranch(int *A, Op op)
{
    __shared__ int s[65];
    unsigned t = threadIdx.x;
    if (op == Copy)
        s[t] = A[t];
    else
        s[t + 1] = A[t];
    __syncthreads();
    A[t] = s[t];
}
