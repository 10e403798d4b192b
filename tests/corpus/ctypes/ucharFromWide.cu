//--blockDim=64 --gridDim=1
//expect: verified

// Twin of boolFromWide: (unsigned char)256 is 0.
__global__ void ucharFromWide(int *out, int m)
{
    __requires(m == 256);
    unsigned char b = m;
    if (b)
        out[0] = threadIdx.x;
    out[threadIdx.x + 1] = m;
}
