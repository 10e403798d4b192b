//--blockDim=64 --gridDim=8
//expect: race
// Twin of claim_byte_counts.cu without the check for a zero count: a thread that
// claims nothing gets the first slot of another thread's range.
__global__ void firstSlots(const unsigned char *counts, unsigned int *next, unsigned int *slots)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned char c = counts[i];
    unsigned int pos = atomicAdd(next, c);
    slots[pos] = i; //~ race(slots)
}
