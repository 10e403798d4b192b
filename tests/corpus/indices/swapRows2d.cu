//expect: verified
#include <cuda_runtime.h>
// 2D launch: y indexes rows over B*T (split b,t), x indexes V. Both guarded.
// Write to (t, b, col) layout: t*B*V + b*V + col, exact in base (T,B,V).
__global__ void swap_bt(float* out, const float* in, int B, int T, int V) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= B * T || col >= V) return;
    int b = row / T;
    int t = row % T;
    out[t * B * V + b * V + col] = in[row * V + col];
}
