//fail
//--blockDim=[16,16] --gridDim=[8,8]
//expect: race

#define TILE_DIM 16

// The barrier between filling the tile and reading it transposed is missing.
__global__ void transposeCoalesced(float *odata, const float *idata, int width, int height)
{
    __requires(width == 128);
    __requires(height == 128);
    __shared__ float tile[TILE_DIM][TILE_DIM];
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    tile[threadIdx.y][threadIdx.x] = idata[x + y * width]; //~ race(tile)
    x = blockIdx.y * TILE_DIM + threadIdx.x;
    odata[x + (blockIdx.x * TILE_DIM + threadIdx.y) * height] = tile[threadIdx.x][threadIdx.y]; //~ race(tile)
}
