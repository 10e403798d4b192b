//expect: race
#include <cuda_runtime.h>
// Row weight 16 but lane spans 0..31. B=2, H=1: thread idx=16 (warp 0, lane 16)
// writes out[16]; thread idx=32 (warp 1 -> b=1,h=0, lane 0) writes out[1*16+0]=out[16].
__global__ void warp_transpose(float* out, const float* in, int B, int H) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = idx & 31;
    int warp = idx >> 5;
    if (warp >= B * H) return;
    int h = warp % H;
    int b = warp / H;
    out[(h * B + b) * 16 + lane] = in[idx]; //~ race(out)
}
