//--blockDim=64 --gridDim=32
//expect: race
// Twin of block_slot_zero.cu: the threads of a block store their own index into the
// block's slot.
__global__ void clearSlots(unsigned *out)
{
    out[blockIdx.x] = threadIdx.x; //~ race(out)
}
