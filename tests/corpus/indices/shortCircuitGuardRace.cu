//expect: race

// Twins of shortCircuitGuard.cu's tests that let more than one thread of a block in:
// `threadIdx.x < 2 && ...`, and `||` with the pointer test first (a non-null `rstd`
// lets every thread write).
#include <cuda_runtime.h>

__global__ void row_stats(float *mean, float *rstd, const float *inp, int C)
{
    float s = inp[blockIdx.x * C + threadIdx.x];
    if (threadIdx.x < 2 && mean != nullptr)
        mean[blockIdx.x] = s;           //~ race(mean)
    if (rstd != nullptr || threadIdx.x == 0)
        rstd[blockIdx.x] = s;           //~ race(rstd)
}
