//expect: race

// Twin of gridStride.cu with the stride of one block: block 1's first visit is block
// 0's second.
#include <cuda_runtime.h>

__global__ void add_bias(float *out, const float *bias, int N, int OC)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    int stride = blockDim.x;
    for (int i = idx; i < N * OC; i += stride) {
        out[i] += bias[i % OC];  //~ race(out)
    }
}
