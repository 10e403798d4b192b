//--blockDim=64 --gridDim=1
//expect: race

enum Op { Copy, Shift };

// Twin of enumUniformBranch with op chosen per thread: thread t+1 copies into the slot
// thread t shifts into.
__global__ void enumPerThreadBranch(int *A)
{
    __shared__ int s[65];
    unsigned t = threadIdx.x;
    Op op = (Op)(t & 1);
    if (op == Copy)
        s[t] = A[t]; //~ race(s)
    else
        s[t + 1] = A[t]; //~ race(s)
    __syncthreads();
    A[t] = s[t];
}
