//--blockDim=64 --gridDim=1
//expect: verified

// Twin of negBranchInt: an `unsigned` parameter is never below zero.
__global__ void negBranchUnsigned(int *out, unsigned m)
{
    unsigned t = threadIdx.x;
    if (m < 0)
        out[0] = t;
    else
        out[t] = m;
}
