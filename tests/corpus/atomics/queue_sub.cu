//--blockDim=64 --gridDim=4
//expect: verified
// A counter that counts down (seed 000, Sec. 4.2: `atomic_dec`/`atomic_sub` with
// g(x) = x - 1): `atomicSub` of a positive amount hands out distinct values too.
__global__ void queue(unsigned int *count, float *out, unsigned int n)
{
    unsigned int i = atomicSub(count, 1);
    if (i < n)
        out[i] = 1.0f;
}
