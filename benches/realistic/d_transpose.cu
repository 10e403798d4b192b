//--blockDim=[16,16] --gridDim=[16,16]
// Matrix transpose through shared memory (the SDK transpose sample's kernel): a block
// reads a TILE x TILE tile row by row, and after a barrier writes it out transposed, so
// that both global accesses are coalesced. The tile has one padding column so that the
// column-wise reads fall into different banks.

#define TILE 16

__global__ void d_transpose(float *out, float *in, int width, int height)
{
    __requires(width == 256);
    __requires(height == 256);

    __shared__ float tile[TILE][TILE + 1];

    unsigned int col = blockIdx.x * TILE + threadIdx.x;
    unsigned int row = blockIdx.y * TILE + threadIdx.y;
    if (col < width && row < height)
        tile[threadIdx.y][threadIdx.x] = in[row * width + col];

    __syncthreads();

    // the block's tile lands at the mirrored position
    col = blockIdx.y * TILE + threadIdx.x;
    row = blockIdx.x * TILE + threadIdx.y;
    if (col < height && row < width)
        out[row * height + col] = tile[threadIdx.x][threadIdx.y];
}
