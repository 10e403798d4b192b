//--blockDim=128 --gridDim=8
//expect: race
// Twin of uniform_result.cu: the value depends on the block, so threads of two blocks
// write different values to `res[0]` (a race between blocks, which no barrier fixes),
// and `res[1]` mixes two different expressions.
//expect-unfixable
__global__ void setup(int *res, int n, int m)
{
    res[0] = n * 2 + blockIdx.x; //~ race(res)
    if (threadIdx.x % 3 == 0)
        res[1] = n + m; //~ race(res)
    else
        res[1] = m * 2 + n; //~ race(res)
}
