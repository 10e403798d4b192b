//--blockDim=64 --gridDim=1
//expect: race

// A partitioning helper of this file named like the cooperative-groups function: it
// writes pairs of threads into one cell.
__device__ int tiled_partition(int *bins, int key)
{
    bins[key / 2] = key; //~ race(bins)
    return key % 2;
}

__global__ void split(int *out)
{
    __shared__ int bins[32];
    int side = tiled_partition(bins, threadIdx.x);
    out[threadIdx.x] = side;
}
