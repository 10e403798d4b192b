//--blockDim=64 --gridDim=4
//expect: race
//dynamic: verified (no run reads the largest unsigned value)
// A real race: `len[..] + 1` is 0 in unsigned arithmetic when `len[..]` is 0xffffffff,
// and a thread that adds 0 takes the same slot as the next one.
__global__ void queue(unsigned int *count, const unsigned int *len, float *out)
{
    unsigned int i = atomicAdd(count, len[blockIdx.x * blockDim.x + threadIdx.x] + 1);
    out[i] = threadIdx.x; //~ race(out)
}
