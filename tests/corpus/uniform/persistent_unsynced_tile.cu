//fail
//--blockDim=128 --gridDim=16
//expect: race

// The barrier after taking the tile is missing: the other threads read `tile`
// while thread 0 may still be writing it.

__device__ unsigned int nextTile;

__global__ void persistentUnsynced(const float *in, float *total, unsigned int numTiles)
{
    __shared__ unsigned int tile;
    __shared__ float part[128];
    unsigned int tid = threadIdx.x;

    while (true) {
        if (tid == 0)
            tile = atomicAdd(&nextTile, 1u); //~ race(tile)
        if (tile >= numTiles) //~ race(tile)
            break;
        part[tid] = in[tile * 128 + tid]; //~ race(tile)
        __syncthreads();
        if (tid < 64)
            part[tid] += part[tid + 64];
        __syncthreads();
        if (tid == 0)
            atomicAdd(total, part[0] + part[1]);
        __syncthreads();
    }
}
