//--blockDim=64 --gridDim=4
//expect: verified
// `atomicInc` with the largest bound never wraps in a run (the counter assumption), so
// it hands out distinct values like atomicAdd of 1 (see inc_small_bound.cu for a
// bound that wraps).
__global__ void queue(unsigned int *count, float *out)
{
    unsigned int i = atomicInc(count, 0xffffffffu);
    out[i] = 1.0f;
}
