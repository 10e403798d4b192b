//expect: verified

// Flat thread indices of two-dimensional blocks under `__launch_bounds__`: a block has
// at most 128 threads, so `x + blockDim.x * y` (written either way round) is below
// 128 and each thread owns its cell of `ring`. No launch in the file: the block's
// shape is any within the bound.
#include <cuda_runtime.h>

__global__ void __launch_bounds__(128) ring_shift(const float *in, float *out)
{
    __shared__ float ring[128];
    int t = threadIdx.x + blockDim.x * threadIdx.y;
    ring[t % 128] = in[t];
    __syncthreads();
    atomicAdd(&out[t], ring[(t + 1) % 128]);
}

__global__ void __launch_bounds__(128) ring_shift_swapped(const float *in, float *out)
{
    __shared__ float ring[128];
    int t = threadIdx.y * blockDim.x + threadIdx.x;
    ring[t & 127] = in[t];
    __syncthreads();
    atomicAdd(&out[t], ring[(t + 3) & 127]);
}
