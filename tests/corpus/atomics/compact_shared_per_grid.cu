//--blockDim=256 --gridDim=16
//expect: race
//expect-unfixable
// Twin of compact_shared.cu that writes the global output at the shared slot: each
// block has its own counter, so threads of two blocks take the same slot.
__global__ void compactBlocks(const float *in, float *out, float limit)
{
    __shared__ unsigned int n;
    if (threadIdx.x == 0)
        n = 0;
    __syncthreads();
    float v = in[blockIdx.x * blockDim.x + threadIdx.x];
    if (v > limit)
        out[atomicAdd(&n, 1)] = v; //~ race(out)
}
