//--blockDim=64 --gridDim=1
//expect: race

// A tile with an array member, passed by reference to a function of another file: every
// cell of the neighbour's tile may be written.
struct Tile {
    float v[4];
};

__device__ void clearTile(Tile &tile);

__global__ void tiles(float *out)
{
    __shared__ Tile tiles[65];
    unsigned t = threadIdx.x;
    tiles[t].v[3] = 1.0f;
    __syncthreads();
    clearTile(tiles[t + 1]); //~ race(tiles)
    out[t] = tiles[t].v[3]; //~ race(tiles)
}
