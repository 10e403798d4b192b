//--blockDim=64 --gridDim=1
//expect: verified

// Each thread clears its own tile, then reads the neighbour's after the barrier.
struct Tile {
    float v[4];
};

__device__ void clearTile(Tile &tile);

__global__ void tiles(float *out)
{
    __shared__ Tile tiles[65];
    unsigned t = threadIdx.x;
    clearTile(tiles[t]);
    __syncthreads();
    out[t] = tiles[t + 1].v[3];
}
