//pass
//--blockDim=[32,8] --gridDim=[32,32]
//expect: verified

#define TILE_DIM 32
#define BLOCK_ROWS 8

// A padded tile so that column reads hit distinct banks; each thread moves
// TILE_DIM/BLOCK_ROWS elements.
__global__ void transposeNoBankConflicts(float *odata, const float *idata, int width, int height)
{
    __requires(width == 1024);
    __requires(height == 1024);
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];

    int xIndex = blockIdx.x * TILE_DIM + threadIdx.x;
    int yIndex = blockIdx.y * TILE_DIM + threadIdx.y;
    int index_in = xIndex + yIndex * width;

    xIndex = blockIdx.y * TILE_DIM + threadIdx.x;
    yIndex = blockIdx.x * TILE_DIM + threadIdx.y;
    int index_out = xIndex + yIndex * height;

#pragma unroll
    for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS)
        tile[threadIdx.y + i][threadIdx.x] = idata[index_in + i * width];

    __syncthreads();

#pragma unroll
    for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS)
        odata[index_out + i * height] = tile[threadIdx.x][threadIdx.y + i];
}
