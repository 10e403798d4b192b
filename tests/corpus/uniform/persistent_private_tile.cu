//fail
//--blockDim=128 --gridDim=16
//expect: divergence

// The tile number lives in a register of thread 0 only: the other threads test
// an uninitialised value, so they leave the loop on their own and the barriers
// inside it diverge.

__device__ unsigned int nextTile;

__global__ void persistentPrivate(const float *in, float *total, unsigned int numTiles)
{
    __shared__ float part[128];
    unsigned int tid = threadIdx.x;
    unsigned int tile;

    while (true) {
        if (tid == 0)
            tile = atomicAdd(&nextTile, 1u);
        __syncthreads(); //~ divergence
        if (tile >= numTiles)
            break;
        part[tid] = in[tile * 128 + tid]; //~ race(part)
        __syncthreads(); //~ divergence
        if (tid < 64)
            part[tid] += part[tid + 64]; //~ race(part)
        __syncthreads(); //~ divergence
        if (tid == 0)
            atomicAdd(total, part[0] + part[1]); //~ race(part)
        __syncthreads(); //~ divergence
    }
}
