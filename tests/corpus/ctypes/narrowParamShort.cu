//--blockDim=64 --gridDim=2
//expect: race

// Twin of narrowParamSchar: a `short` keeps 200 > 0, every thread writes out[0].
__global__ void narrowParamShort(int *out, int m)
{
    __requires(m == 200);
    short off = m;
    if (off > 0)
        out[0] = threadIdx.x; //~ race(out)
    out[blockIdx.x * blockDim.x + threadIdx.x + 1] = off;
}
