//--blockDim=64 --gridDim=4
//expect: race

enum Mode { Load, Store, Skip, Swap, Fill };

// Twin of enumThreeBits with five enumerators: m = Fill = 4 writes out[0] in every thread.
__global__ void enumFiveBits(int *out, Mode m)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (m >= 4)
        out[0] = i; //~ race(out)
    else
        out[i + 1] = m;
}
