//--blockDim=256 --gridDim=1024
// Last phase of the SDK scan sample: every block adds the scanned total of the blocks
// before it to its four-element vectors. Thread 0 fetches that offset into shared
// memory; after a barrier every thread applies it.

__global__ void uniformUpdate(uint4 *data, unsigned int *blockOffsets)
{
    __shared__ unsigned int offset;
    unsigned int at = blockIdx.x * blockDim.x + threadIdx.x;

    if (threadIdx.x == 0)
        offset = blockOffsets[blockIdx.x];

    __syncthreads();

    uint4 v = data[at];
    v.x += offset;
    v.y += offset;
    v.z += offset;
    v.w += offset;
    data[at] = v;
}
