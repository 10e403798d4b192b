//--blockDim=128 --gridDim=4
//expect: race
//dynamic: verified (the runs' inputs are small and non-negative: no thread resets the counter)
// Twin of compact_global.cu where the counter is also set by atomicExch: slots repeat.
__global__ void compact(const int *in, int *out, unsigned int *count)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[i];
    if (v > 0)
        out[atomicAdd(count, 1u)] = v; //~ race(out)
    if (v < -100)
        atomicExch(count, 0u);
}
