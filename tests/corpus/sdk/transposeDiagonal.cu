//pass
//--blockDim=[16,16] --gridDim=[32,32]
//expect: verified

#define TILE_DIM 16

// Blocks walk the matrix along diagonals to avoid partition camping.
__global__ void transposeDiagonal(float *odata, float *idata, int width, int height)
{
    __requires(width == 512);
    __requires(height == 512);
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];

    int blockIdx_x, blockIdx_y;
    if (width == height) {
        blockIdx_y = blockIdx.x;
        blockIdx_x = (blockIdx.x + blockIdx.y) % gridDim.x;
    } else {
        int bid = blockIdx.x + gridDim.x * blockIdx.y;
        blockIdx_y = bid % gridDim.y;
        blockIdx_x = ((bid / gridDim.y) + blockIdx_y) % gridDim.x;
    }

    int xIndex = blockIdx_x * TILE_DIM + threadIdx.x;
    int yIndex = blockIdx_y * TILE_DIM + threadIdx.y;
    int index_in = xIndex + yIndex * width;

    xIndex = blockIdx_y * TILE_DIM + threadIdx.x;
    yIndex = blockIdx_x * TILE_DIM + threadIdx.y;
    int index_out = xIndex + yIndex * height;

    tile[threadIdx.y][threadIdx.x] = idata[index_in];
    __syncthreads();
    odata[index_out] = tile[threadIdx.x][threadIdx.y];
}
