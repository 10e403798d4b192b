//--blockDim=8 --gridDim=1
//expect: verified

// (m < 0 ? m : 0u) has type unsigned: for m = -1 it is UINT_MAX, never < 5.
__global__ void ternaryCommonTypeLess(int *A, int m)
{
    __requires(m == -1);
    if ((m < 0 ? m : 0u) < 5)
        A[0] = threadIdx.x;
}
