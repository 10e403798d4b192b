//--blockDim=64 --gridDim=1
//expect: verified

// Twin of headerDeviceRace.cu: the header's device function has its barrier.
#include "headerDevice.cuh"

__global__ void minStep(int *g)
{
    __shared__ int s[64];
    s[threadIdx.x] = g[threadIdx.x];
    __syncthreads();
    Comparator(s, threadIdx.x);
    __syncthreads();
    g[threadIdx.x] = s[threadIdx.x];
}
