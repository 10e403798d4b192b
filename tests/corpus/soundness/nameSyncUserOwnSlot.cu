//--blockDim=64 --gridDim=1
//expect: verified

// The file's own `sync` that writes the caller's own slot: no barrier is needed to read
// it back.
__device__ void sync(int *slots, int value)
{
    slots[threadIdx.x] = value;
}

__global__ void publish(int *out)
{
    __shared__ int slots[64];
    sync(slots, threadIdx.x);
    out[threadIdx.x] = slots[threadIdx.x] + 1;
}
