//--blockDim=64 --gridDim=4
//expect: verified

enum Mode { Load, Store, Skip };

// Mode's values are those of a 2-bit field, 0..3: m >= 4 never holds.
__global__ void enumThreeBits(int *out, Mode m)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (m >= 4)
        out[0] = i;
    else
        out[i + 1] = m;
}
