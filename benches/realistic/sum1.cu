//--blockDim=512 --gridDim=16
// Array sum, second variant: every thread first adds up a strided run of the input
// (the whole grid walks the array together), then the block halves its shared tile of
// per-thread sums as in sum0.

#define TILE 512

__global__ void sum1(const int *src, int *block_sums, int count)
{
    __requires(count == 1048576);

    __shared__ int tile[TILE];

    int lane = threadIdx.x;
    int s = 0;
    for (int at = blockIdx.x * TILE + lane; at < count; at += TILE * gridDim.x)
        s += src[at];

    tile[lane] = s;
    __syncthreads();

    for (int width = TILE / 2; width > 0; width >>= 1) {
        if (lane < width)
            tile[lane] += tile[lane + width];
        __syncthreads();
    }

    if (lane == 0)
        block_sums[blockIdx.x] = tile[0];
}
