//expect: race
#include <cuda_runtime.h>
// b weighted by V instead of T*V. B=2, T=2, V=1: thread b=0 (idx 0) at t=1
// writes out[0+1+0]=out[1]; thread b=1 (idx 1) at t=0 writes out[1*1+0+0]=out[1].
__global__ void col_cumsum(float* out, const float* in, unsigned B, unsigned T, unsigned V) {
    unsigned idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < B * V) {
        unsigned b = idx / V;
        unsigned v = idx % V;
        float acc = 0.0f;
        for (unsigned t = 0; t < T; ++t) {
            acc += in[b * T * V + t * V + v];
            out[b * V + t * V + v] = acc; //~ race(out)
        }
    }
}
