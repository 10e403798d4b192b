//--blockDim=32 --gridDim=1
//expect: verified

#include <cuda/std/utility>

// The even step of an odd-even sort: each thread swaps its own pair.
__global__ void bubble(int *data)
{
    __shared__ int keys[64];
    unsigned t = threadIdx.x;
    keys[2 * t] = data[2 * t];
    keys[2 * t + 1] = data[2 * t + 1];
    __syncthreads();
    if (keys[2 * t] > keys[2 * t + 1])
        cuda::std::swap(keys[2 * t], keys[2 * t + 1]);
    __syncthreads();
    data[t] = keys[t];
    data[t + 32] = keys[t + 32];
}
