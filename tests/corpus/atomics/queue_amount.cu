//--blockDim=64 --gridDim=4
//expect: verified
// Each thread claims `threadIdx.x + 1` slots at once and fills them.
__global__ void queue(unsigned int *count, unsigned int *out)
{
    unsigned int len = threadIdx.x + 1;
    unsigned int first = atomicAdd(count, len);
    for (unsigned int k = 0; k < len; k++)
        out[first + k] = threadIdx.x;
}
