//--blockDim=128 --gridDim=4
//expect: race

#include <cub/cub.cuh>

// Two block-wide reductions on one temporary storage with no barrier between them: the
// race CUB's documentation warns about (a collective's storage is reused only after a
// __syncthreads()).
__global__ void sumAndMax(const int *in, int *out)
{
    typedef cub::BlockReduce<int, 128> BlockReduce;
    __shared__ typename BlockReduce::TempStorage temp;
    int x = in[blockIdx.x * 128 + threadIdx.x];
    int total = BlockReduce(temp).Sum(x); //~ race(temp)
    int largest = BlockReduce(temp).Reduce(x, cub::Max()); //~ race(temp)
    if (threadIdx.x == 0) {
        out[2 * blockIdx.x] = total;
        out[2 * blockIdx.x + 1] = largest;
    }
}
