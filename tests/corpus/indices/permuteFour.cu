//expect: verified

// A 4-d transpose: the flat index is taken apart into (i1, i2, i3, i4), the outermost
// digit still reduced `% d1`, and the output index puts the digits together in another
// order. Every digit is below its extent and the weights grow by the extents, so
// distinct threads write distinct cells.
#include <cuda_runtime.h>

__global__ void transpose4(const float *src, float *dst, int d1, int d2, int d3, int d4)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < d1 * d2 * d3 * d4) {
        int i1 = (idx / (d2 * d3 * d4)) % d1;
        int i2 = (idx / (d3 * d4)) % d2;
        int i3 = (idx / d4) % d3;
        int i4 = idx % d4;
        int to = i4 * (d3 * d1 * d2) + i3 * (d1 * d2) + i1 * d2 + i2;
        dst[to] = src[idx];
    }
}
