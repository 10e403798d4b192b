//--blockDim=8 --gridDim=1
//expect: race
//tool: verified (documented no-overflow deviation: unary minus on unsigned gives -5); --wrap: race

// -n on `unsigned n = 5` is 2^32 - 5, positive also as `long long`.
__global__ void unsignedNegate(int *A, unsigned n)
{
    __requires(n == 5);
    long long x = -n;
    if (x > 0)
        A[0] = threadIdx.x; //~ race(A)
}
