//expect: race

// Twin of permuteFour.cu written in place: thread `idx` reads `buf[idx]` and another
// thread writes it as its permuted cell (d1 = d3 = d4 = 1, d2 = 2 is a plain copy, but
// d1 = 2, d2 = d3 = d4 = 1 swaps nothing either; d2 = 2, d4 = 2: thread 1 (i4 1) writes
// cell 2, which thread 2 reads).
#include <cuda_runtime.h>

__global__ void transpose4_inplace(float *buf, int d1, int d2, int d3, int d4)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < d1 * d2 * d3 * d4) {
        int i1 = (idx / (d2 * d3 * d4)) % d1;
        int i2 = (idx / (d3 * d4)) % d2;
        int i3 = (idx / d4) % d3;
        int i4 = idx % d4;
        int to = i4 * (d3 * d1 * d2) + i3 * (d1 * d2) + i1 * d2 + i2;
        float v = buf[idx];  //~ race(buf)
        buf[to] = v;         //~ race(buf)
    }
}
