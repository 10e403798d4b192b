//--blockDim=64 --gridDim=4
//expect: race
// `atomicExch` returns any value (only atomicAdd of positive amounts is treated as
// a repetition-free counter; atomicInc wraps at its bound).
__global__ void queue(unsigned int *count, float *out)
{
    unsigned int i = atomicExch(count, threadIdx.x);
    out[i] = threadIdx.x; //~ race(out)
}
