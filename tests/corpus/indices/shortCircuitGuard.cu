//expect: verified

// `threadIdx.x == 0 && mean != nullptr`: the pointer test is one unknown truth for the
// whole launch (a parameter compared with null), and the other operand stays exact, so
// only thread 0 of each block writes its block's statistics. The same with `||` under
// `!`, with the pointer itself as the test, and in a conditional expression.
#include <cuda_runtime.h>

__global__ void row_stats(float *mean, float *rstd, int *count, const float *inp, int C)
{
    float s = 0.0f;
    for (int i = threadIdx.x; i < C; i += blockDim.x)
        s += inp[blockIdx.x * C + i];
    if (threadIdx.x == 0 && mean != nullptr)
        mean[blockIdx.x] = s / C;
    if (!(rstd == NULL || threadIdx.x != 0))
        rstd[blockIdx.x] = 1.0f / s;
    if (count && threadIdx.x == 0)
        count[blockIdx.x] = C;
    float *dst = mean != nullptr ? mean : rstd;
    if (threadIdx.x == 0)
        dst[gridDim.x + blockIdx.x] = s;
}
