//--blockDim=64 --gridDim=32
//expect: verified
// Every thread of a block clears its block's slot, then the block's last thread marks
// the block as seen in a second array: the same constant from every writer.
__global__ void clearSlots(unsigned *out, unsigned *seen)
{
    out[blockIdx.x] = 0;
    if (threadIdx.x == blockDim.x - 1)
        seen[blockIdx.x] = 1u;
    seen[blockIdx.x + gridDim.x] = 7u;
}
