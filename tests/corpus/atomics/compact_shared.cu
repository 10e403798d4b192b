//--blockDim=256 --gridDim=16
//expect: verified
// Per-block compaction through a shared counter that thread 0 clears first: the slots
// of one block are distinct, and each block writes its own part of the output.
__global__ void compactBlocks(const float *in, float *out, float limit)
{
    __shared__ unsigned int n;
    __shared__ float kept[256];
    if (threadIdx.x == 0)
        n = 0;
    __syncthreads();
    float v = in[blockIdx.x * blockDim.x + threadIdx.x];
    if (v > limit) {
        unsigned int slot = atomicAdd(&n, 1);
        kept[slot] = v;
    }
    __syncthreads();
    if (threadIdx.x < n)
        out[blockIdx.x * blockDim.x + threadIdx.x] = kept[threadIdx.x];
}
