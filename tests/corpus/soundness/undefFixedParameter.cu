//--blockDim=64 --gridDim=1
//expect: race

#include <indexing.h>

// `clampIndex` comes from a header that is not here and may take its argument by
// reference: the parameter `i`, which `store` never assigns itself, may change (to one
// cell for every thread).
__device__ void store(int *s, int i)
{
    clampIndex(i);
    s[i] = threadIdx.x; //~ race(s)
}

__global__ void scatter(int *out)
{
    __shared__ int s[64];
    store(s, threadIdx.x);
    out[threadIdx.x] = s[threadIdx.x]; //~ race(s)
}
