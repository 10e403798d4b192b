//--blockDim=64 --gridDim=2
//expect: verified

// m = 200 stored in a `signed char` is -56: not positive, nobody writes out[0].
__global__ void narrowParamSchar(int *out, int m)
{
    __requires(m == 200);
    signed char off = m;
    if (off > 0)
        out[0] = threadIdx.x;
    out[blockIdx.x * blockDim.x + threadIdx.x + 1] = off;
}
