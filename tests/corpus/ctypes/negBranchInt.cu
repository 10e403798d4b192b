//--blockDim=64 --gridDim=1
//expect: race

// An `int` parameter can be negative: every thread then writes out[0].
__global__ void negBranchInt(int *out, int m)
{
    unsigned t = threadIdx.x;
    if (m < 0)
        out[0] = t; //~ race(out)
    else
        out[t] = m;
}
