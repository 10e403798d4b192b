//--blockDim=32 --gridDim=8
//expect: race

enum class Dir : short { Up, Down };

// Twin of enumClassUchar: over `short`, d = 256 is a value of Dir.
__global__ void enumClassShort(int *out, Dir d)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if ((int)d >= 256)
        out[0] = i; //~ race(out)
    else
        out[i + 1] = (int)d;
}
