//--blockDim=64 --gridDim=1
//expect: race

// The file's own `sync` publishes a value into slot 0; it is not cooperative_groups::sync
// and synchronizes nothing: every thread writes the one slot.
__device__ void sync(int *slots, int value)
{
    slots[0] = value; //~ race(slots)
}

__global__ void publish(int *out)
{
    __shared__ int slots[64];
    sync(slots, threadIdx.x);
    out[threadIdx.x] = slots[0]; //~ race(slots)
}
