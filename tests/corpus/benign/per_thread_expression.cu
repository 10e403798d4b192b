//--blockDim=64 --gridDim=1
//expect: race
// The same-looking expression of per-thread values stores different values: each
// thread's `in[tid]` and `tid * 2` differ.
__global__ void last(const int *in, int *out)
{
    unsigned tid = threadIdx.x;
    out[0] = in[tid]; //~ race(out)
    out[1] = tid * 2; //~ race(out)
}
