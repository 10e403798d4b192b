//expect: verified
#include <cuda_runtime.h>
// Grid-stride loop with full grid stride over N*C*H*W, NCHW -> NHWC.
// Each i is visited by exactly one thread (start = global id, stride = total
// threads), and the NHWC index is a bijection of i.
__global__ void nchw_to_nhwc(float* out, const float* in, int N, int C, int H, int W) {
    long total = (long)N * C * H * W;
    for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (long)blockDim.x * gridDim.x) {
        long n = i / ((long)C * H * W);
        long c = (i / ((long)H * W)) % C;
        long h = (i / W) % H;
        long w = i % W;
        out[((n * H + h) * W + w) * C + c] = in[i];
    }
}
