//--blockDim=64 --gridDim=8
//expect: verified
// Amounts from memory that cannot be negative: `unsigned char` counts. Each thread
// with a nonzero count claims that many slots and writes the first and the last.
__global__ void firstSlots(const unsigned char *counts, unsigned int *next, unsigned int *slots)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned char c = counts[i];
    unsigned int pos = atomicAdd(next, c);
    if (c > 0) {
        slots[pos] = i;
        slots[pos + c - 1] = i;
    }
}
