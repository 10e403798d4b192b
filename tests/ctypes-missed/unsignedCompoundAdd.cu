//--blockDim=8 --gridDim=1
//expect: race
//tool: verified (documented no-overflow deviation: the negative sum is stored in `u` with its mathematical value -1); --wrap: race

// u += m converts m = -1 to UINT_MAX and wraps: u becomes UINT_MAX > 5.
__global__ void unsignedCompoundAdd(int *A, int m)
{
    __requires(m == -1);
    unsigned u = 0;
    u += m;
    if (u > 5)
        A[0] = threadIdx.x; //~ race(A)
}
