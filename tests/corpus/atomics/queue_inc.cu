//--blockDim=64 --gridDim=4
//expect: race
//dynamic: verified (false alarm: atomicInc with the largest bound never wraps in a run, but atomicInc is not treated as a counter)
// `atomicInc` returns any value (only atomicAdd of positive amounts is treated as
// a repetition-free counter; atomicInc wraps at its bound).
__global__ void queue(unsigned int *count, float *out)
{
    unsigned int i = atomicInc(count, 0xffffffffu);
    out[i] = 1.0f; //~ race(out)
}
