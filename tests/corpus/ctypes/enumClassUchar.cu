//--blockDim=32 --gridDim=8
//expect: verified

enum class Dir : unsigned char { Up, Down };

// A scoped enum over `unsigned char` ranges over 0..255: (int)d >= 256 never holds.
__global__ void enumClassUchar(int *out, Dir d)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if ((int)d >= 256)
        out[0] = i;
    else
        out[i + 1] = (int)d;
}
