//--blockDim=64 --gridDim=1
//expect: race
// `__double_as_longlong` returns all 64 bits: its high bits can be 5, and then every
// thread stores its own index into out[0]. An intrinsic's result is any integer.
__global__ void k(float *out, const double *in)
{
    long long a = __double_as_longlong(in[0]);
    if ((a >> 40) == 5)
        out[0] = threadIdx.x; //~ race(out)
}
