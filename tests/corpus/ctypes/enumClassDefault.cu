//--blockDim=32 --gridDim=8
//expect: race

enum class Level { Low, High };

// A scoped enum without an underlying type is `int`: (int)l < 0 can hold.
__global__ void enumClassDefault(int *out, Level l)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if ((int)l < 0)
        out[0] = i; //~ race(out)
    else
        out[i + 1] = (int)l;
}
