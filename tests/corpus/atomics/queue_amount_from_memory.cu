//--blockDim=64 --gridDim=4
//expect: race
//dynamic: verified (false alarm for unsigned data)
// False alarm (documented): values are untyped, so `len[..] + 1` may be 0 or negative
// and the counter is not known to be repetition-free.
__global__ void queue(unsigned int *count, const unsigned int *len, float *out)
{
    unsigned int i = atomicAdd(count, len[blockIdx.x * blockDim.x + threadIdx.x] + 1);
    out[i] = 1.0f; //~ race(out)
}
