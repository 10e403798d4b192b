//--blockDim=64 --gridDim=4
//expect: verified
// Slots through arithmetic: odd elements from one counter, even ones from another,
// and a block of elements past `base` from a third.
__global__ void queue(unsigned int *count, float *odd_even, float *out, unsigned int base)
{
    unsigned int i = atomicAdd(count, 1) * 2 + 1;
    odd_even[i] = 1.0f;
    unsigned int j = atomicAdd(count + 1, 1);
    odd_even[2 * j] = 2.0f;
    unsigned int k = atomicAdd(&count[2], 1);
    out[base + k] = 3.0f;
}
