//--blockDim=128 --gridDim=4
//expect: verified

// -1 < n with `unsigned n` compares UINT_MAX < n: always false, nobody writes out[0].
__global__ void minusOneLessUnsigned(int *out, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (-1 < n)
        out[0] = i;
    else
        out[i + 1] = n;
}
