//expect: verified

// Each thread owns one (batch, token) row and walks its C channels: the index is
// `(b*T + t)*C + c` with `b`, `t` the digits of the thread's number and `c` below `C`
// by the loop's guard.
#include <cuda_runtime.h>

__global__ void add_position(float *out, const float *tok, const float *pos, int B, int T, int C)
{
    int n = blockIdx.x * blockDim.x + threadIdx.x;
    if (n < B * T) {
        int b = n / T;
        int t = n % T;
        for (int c = 0; c < C; c++) {
            out[(b * T + t) * C + c] = tok[(b * T + t) * C + c] + pos[t * C + c];
        }
    }
}
