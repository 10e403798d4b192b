//--blockDim=64 --gridDim=4
//expect: race
// A counter that goes up and down repeats values: adding and subtracting on the same
// counter is not repetition-free.
__global__ void queue(unsigned int *count, float *out)
{
    unsigned int i = atomicAdd(count, 1);
    atomicSub(count, 1);
    out[i] = blockIdx.x * blockDim.x + threadIdx.x; //~ race(out)
}
