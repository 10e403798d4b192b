//--blockDim=64 --gridDim=1
//expect: race
// C++17 evaluates the right operand of `=` first: the move to `b` happens before the
// store through `p`, which then writes b[tid], racing with the neighbour's store.
__global__ void k(float *a, float *b)
{
    float *p = a;
    b[(threadIdx.x + 1) % 64] = 1.0f; //~ race(b)
    p[threadIdx.x] = (p = b, 2.0f); //~ race(b)
}
