//--blockDim=32 --gridDim=2
//expect: race

// Twin of loopBoundBounded: compared as `long long`, negative iterations run and share A[0].
__global__ void loopBoundWide(int *A, int lo, unsigned n)
{
    __requires(n <= 1024);
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    for (int i = lo; (long long)i < n; ++i) {
        if (i < 0)
            A[0] = t; //~ race(A)
        else
            A[t + 1] = i;
    }
}
