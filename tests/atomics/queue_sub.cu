//--blockDim=64 --gridDim=4
//expect: race 9
//dynamic: verified (false alarm: atomicSub of 1 hands out distinct values, but only atomicAdd counters are refined)
// `atomicSub` returns any value (only atomicAdd of positive amounts is treated as
// a repetition-free counter; atomicInc wraps at its bound).
__global__ void queue(unsigned int *count, float *out)
{
    unsigned int i = atomicSub(count, 1);
    out[i] = 1.0f;
}
