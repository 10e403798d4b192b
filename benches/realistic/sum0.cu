//--blockDim=512 --gridDim=16
// Array sum, first variant (after the C++ AMP reduction samples as the GPUVerify suite
// carries them): each block copies a tile of the input to shared memory and halves the
// tile in place until its sum is in element 0, which goes to the block's output slot.

#define TILE 512

__global__ void sum0(const int *src, int *block_sums, int count)
{
    __requires(count == 8192);

    __shared__ int tile[TILE];

    int lane = threadIdx.x;
    int at = blockIdx.x * TILE + lane;

    tile[lane] = at < count ? src[at] : 0;
    __syncthreads();

    for (int width = TILE / 2; width > 0; width /= 2) {
        if (lane < width)
            tile[lane] = tile[lane] + tile[lane + width];
        __syncthreads();
    }

    if (lane == 0)
        block_sums[blockIdx.x] = tile[0];
}
