//expect: race

// Twin of rowLoop.cu with `c <= C`: the last channel of row n is the first of row n + 1.
#include <cuda_runtime.h>

__global__ void add_position(float *out, const float *tok, const float *pos, int B, int T, int C)
{
    int n = blockIdx.x * blockDim.x + threadIdx.x;
    if (n < B * T) {
        int b = n / T;
        int t = n % T;
        for (int c = 0; c <= C; c++) {
            out[(b * T + t) * C + c] = tok[(b * T + t) * C + c] + pos[t * C + c];  //~ race(out)
        }
    }
}
