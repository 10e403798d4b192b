//--blockDim=64 --gridDim=2
//expect: race

enum Sign { Neg = -1, Zero, Pos };

// Sign's values are those of a signed 2-bit field, -2..1: s < -1 holds for s = -2.
__global__ void enumNegative(int *out, Sign s)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (s < -1)
        out[0] = i; //~ race(out)
    out[i + 1] = s;
}
