//--blockDim=64 --gridDim=2
//expect: verified

enum Sign { Neg = -1, Zero, Pos };

// Twin of enumNegative: no value of Sign (-2..1) is below -2.
__global__ void enumNegativeFloor(int *out, Sign s)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (s < -2)
        out[0] = i;
    out[i + 1] = s;
}
