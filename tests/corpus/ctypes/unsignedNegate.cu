//--blockDim=8 --gridDim=1
//expect: race

// -n on `unsigned n = 5` is 2^32 - 5, positive also as `long long`.
__global__ void unsignedNegate(int *A, unsigned n)
{
    __requires(n == 5);
    long long x = -n;
    if (x > 0)
        A[0] = threadIdx.x; //~ race(A)
}
