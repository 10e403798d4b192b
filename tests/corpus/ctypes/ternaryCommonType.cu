//--blockDim=8 --gridDim=1
//expect: race
//tool (default and --wrap): verified -- the conditional operator's operands are not
//converted to their common type: `m` stays -1 instead of becoming UINT_MAX.

// (m < 0 ? m : 0u) has type unsigned: for m = -1 it is UINT_MAX > 5, so all threads write A[0].
__global__ void ternaryCommonType(int *A, int m)
{
    __requires(m == -1);
    if ((m < 0 ? m : 0u) > 5)
        A[0] = threadIdx.x; //~ race(A)
}
