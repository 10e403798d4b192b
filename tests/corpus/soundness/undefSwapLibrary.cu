//--blockDim=64 --gridDim=1
//expect: race

#include <cuda/std/utility>

// A library swap (not in this file) of overlapping pairs: thread t and thread t + 1 both
// write cell t + 1.
__global__ void bubble(int *data)
{
    __shared__ int keys[65];
    unsigned t = threadIdx.x;
    keys[t] = data[t];
    __syncthreads();
    if (keys[t] > keys[t + 1]) //~ race(keys)
        cuda::std::swap(keys[t], keys[t + 1]); //~ race(keys)
    __syncthreads();
    data[t] = keys[t];
}
