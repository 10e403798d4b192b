//--blockDim=32 --gridDim=2
//expect: verified

// `i < n` converts i to unsigned: a negative start fails the guard at once while n < 2^31.
__global__ void loopBoundBounded(int *A, int lo, unsigned n)
{
    __requires(n <= 1024);
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    for (int i = lo; i < n; ++i) {
        if (i < 0)
            A[0] = t;
        else
            A[t + 1] = i;
    }
}
