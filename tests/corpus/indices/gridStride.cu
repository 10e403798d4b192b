//expect: verified

// A grid-stride loop: thread `idx` visits idx, idx + stride, ... with the stride the
// whole grid's width, so the visits of two threads never meet.
#include <cuda_runtime.h>

__global__ void add_bias(float *out, const float *bias, int N, int OC)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    int stride = blockDim.x * gridDim.x;
    for (int i = idx; i < N * OC; i += stride) {
        out[i] += bias[i % OC];
    }
}
