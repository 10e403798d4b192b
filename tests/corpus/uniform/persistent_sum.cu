//pass
//--blockDim=128 --gridDim=16
//expect: verified

// Persistent blocks: thread 0 takes the next tile from a global counter and
// publishes it in shared memory; after the barrier every thread reads the same
// tile number, so the exit test and the barriers after it are uniform.

__device__ unsigned int nextTile;

__global__ void persistentSum(const float *in, float *total, unsigned int numTiles)
{
    __shared__ unsigned int tile;
    __shared__ float part[128];
    unsigned int tid = threadIdx.x;

    while (true) {
        if (tid == 0)
            tile = atomicAdd(&nextTile, 1u);
        __syncthreads();
        if (tile >= numTiles)
            break;
        part[tid] = in[tile * 128 + tid];
        __syncthreads();
        for (unsigned int s = 64; s > 0; s >>= 1) {
            if (tid < s)
                part[tid] += part[tid + s];
            __syncthreads();
        }
        if (tid == 0)
            atomicAdd(total, part[0]);
        __syncthreads();
    }
}
