//expect: race

// Twins of boundsFlat2d.cu that the flat-index bound must not hide: a bound of 256
// lets two threads of one block meet at `t % 128`, and `x + blockDim.y * y` is not a
// flat index (a 64×2 block gives it 66 values for 128 threads).
#include <cuda_runtime.h>

__global__ void __launch_bounds__(256) ring_shift_wide(const float *in, float *out)
{
    __shared__ float ring[128];
    int t = threadIdx.x + blockDim.x * threadIdx.y;
    ring[t % 128] = in[t]; //~ race(ring)
    __syncthreads();
    atomicAdd(&out[t], ring[(t + 1) % 128]);
}

__global__ void __launch_bounds__(128) ring_shift_wrong_dim(const float *in, float *out)
{
    __shared__ float ring[128];
    int t = threadIdx.x + blockDim.y * threadIdx.y;
    ring[t % 128] = in[t]; //~ race(ring)
    __syncthreads();
    atomicAdd(&out[t], ring[(t + 1) % 128]);
}
