//expect: verified
#include <cuda_runtime.h>
// Thread per (b, v); loop variable t is the MIDDLE digit. Cells of thread
// (b,v) are {b*T*V + t*V + v : t < T}; (b,t,v) -> cell is injective.
__global__ void col_cumsum(float* out, const float* in, unsigned B, unsigned T, unsigned V) {
    unsigned idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < B * V) {
        unsigned b = idx / V;
        unsigned v = idx % V;
        float acc = 0.0f;
        for (unsigned t = 0; t < T; ++t) {
            acc += in[b * T * V + t * V + v];
            out[b * T * V + t * V + v] = acc;
        }
    }
}
