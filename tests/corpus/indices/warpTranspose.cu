//expect: verified
#include <cuda_runtime.h>
// lane = idx & 31, warp = idx >> 5, then warp split by param H; write
// transposed (h, b, lane). (h*B+b) is a bijection of warp in [0,B*H), and the
// lane is a base-32 low digit: distinct threads, distinct cells.
__global__ void warp_transpose(float* out, const float* in, int B, int H) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = idx & 31;
    int warp = idx >> 5;
    if (warp >= B * H) return;
    int h = warp % H;
    int b = warp / H;
    out[(h * B + b) * 32 + lane] = in[idx];
}
