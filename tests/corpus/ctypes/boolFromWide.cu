//--blockDim=64 --gridDim=1
//expect: race

// Conversion to `bool` is != 0, not modular: bool(256) is true.
__global__ void boolFromWide(int *out, int m)
{
    __requires(m == 256);
    bool b = m;
    if (b)
        out[0] = threadIdx.x; //~ race(out)
    out[threadIdx.x + 1] = m;
}
