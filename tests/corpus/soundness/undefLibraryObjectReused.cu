//--blockDim=128 --gridDim=4
//expect: verified

#include <cub/cub.cuh>

// The storage reused as CUB's documentation asks: a barrier between the two collectives.
// One of them through a named object, the other through a temporary.
__global__ void sumAndMax(const int *in, int *out)
{
    using BlockReduce = cub::BlockReduce<int, 128>;
    __shared__ typename BlockReduce::TempStorage temp;
    int x = in[blockIdx.x * 128 + threadIdx.x];
    BlockReduce reduce(temp);
    int total = reduce.Sum(x);
    __syncthreads();
    int largest = BlockReduce(temp).Reduce(x, cub::Max());
    if (threadIdx.x == 0) {
        out[2 * blockIdx.x] = total;
        out[2 * blockIdx.x + 1] = largest;
    }
}
