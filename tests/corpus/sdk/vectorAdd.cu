//pass
//--blockDim=256 --gridDim=196
//expect: verified

#include <cuda.h>

// Element-wise sum of two vectors; the last block is partly idle.
__global__ void vecAdd(const float *a, const float *b, float *c, int n)
{
    __requires(n == 50000);
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < n) {
        c[i] = a[i] + b[i];
    }
}
