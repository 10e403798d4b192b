//--blockDim=8 --gridDim=1
//expect: verified

// Twin of ternaryCommonType (tests/ctypes-missed/): with `long long` operands the
// conditional is -1 for m = -1, never > 5.
__global__ void ternaryWide(int *A, int m)
{
    __requires(m == -1);
    if ((m < 0 ? (long long)m : 0LL) > 5)
        A[0] = threadIdx.x;
}
