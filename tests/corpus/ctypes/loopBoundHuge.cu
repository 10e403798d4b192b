//--blockDim=32 --gridDim=2
//expect: race

// Without a bound on n: lo = -2, n = UINT_MAX runs i = -2 ((unsigned)-2 < UINT_MAX), so A[0] is shared.
__global__ void loopBoundHuge(int *A, int lo, unsigned n)
{
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    for (int i = lo; i < n; ++i) {
        if (i < 0)
            A[0] = t; //~ race(A)
        else
            A[t + 1] = i;
    }
}
