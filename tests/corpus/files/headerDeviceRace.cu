//--blockDim=64 --gridDim=1
//expect: race

// A race in a device function of an included header: reported at the header's lines,
// with the call of this file that reaches them ("in `Comparator`, called at line 14"),
// and marked at the `#include` line that brings them in.
#include "headerDeviceRace.cuh" //~ race(s)

__global__ void minStep(int *g)
{
    __shared__ int s[64];
    s[threadIdx.x] = g[threadIdx.x];
    __syncthreads();
    Comparator(s, threadIdx.x);
    __syncthreads();
    g[threadIdx.x] = s[threadIdx.x];
}
