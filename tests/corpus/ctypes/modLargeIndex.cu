//--blockDim=64 --gridDim=1
//expect: verified

// Twin of modZeroIndex: m >= 64 (so never 0) leaves t % m = t.
__global__ void modLargeIndex(int *A, unsigned m)
{
    __requires(m >= 64);
    unsigned t = threadIdx.x;
    A[t % m] = t;
}
