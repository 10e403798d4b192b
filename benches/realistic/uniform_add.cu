//--blockDim=256 --gridDim=512
// Last phase of the SDK scanLargeArray sample: each block covers 2 * blockDim elements
// and adds the scanned sum of the blocks before it. Thread 0 loads the sum into shared
// memory; after a barrier each thread updates its two elements (the second only when it
// is inside the array).

__global__ void uniform_add(float *data, float *blockSums, int n, int blockOffset, int baseIndex)
{
    __requires(n == 262144);
    __requires(blockOffset == 0);
    __requires(baseIndex == 0);

    __shared__ float sum;
    if (threadIdx.x == 0)
        sum = blockSums[blockIdx.x + blockOffset];

    unsigned int at = __mul24(blockIdx.x, blockDim.x << 1) + baseIndex + threadIdx.x;

    __syncthreads();

    data[at] += sum;
    data[at + blockDim.x] += (threadIdx.x + blockDim.x < n) * sum;
}
