//--blockDim=128 --gridDim=1
//expect: divergence

#include <cub/cub.cuh>

// A block-wide collective called by half of the block: CUB requires every thread.
__global__ void partialSum(const int *in, int *out)
{
    typedef cub::BlockScan<int, 128> BlockScan;
    __shared__ typename BlockScan::TempStorage temp;
    int x = in[threadIdx.x];
    int prefix = 0;
    if (threadIdx.x < 64)
        BlockScan(temp).ExclusiveSum(x, prefix); //~ divergence race(temp)
    out[threadIdx.x] = prefix;
}
