//pass
//--blockDim=[16,16] --gridDim=[64,64]
//expect: verified

#define TILE_DIM 16

// Straight copy with swapped indices: uncoalesced writes, but no sharing.
__global__ void transposeNaive(float *odata, float *idata, int width, int height)
{
    __requires(width == 1024);
    __requires(height == 1024);
    int xIndex = blockIdx.x * TILE_DIM + threadIdx.x;
    int yIndex = blockIdx.y * TILE_DIM + threadIdx.y;
    int index_in = xIndex + width * yIndex;
    int index_out = yIndex + height * xIndex;
    odata[index_out] = idata[index_in];
}
