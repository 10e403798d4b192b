//expect: race
#include <cuda_runtime.h>
// Stride blockDim.x only. gridDim=2, blockDim=1, N=C=H=1, W=2 (total=2):
// block 0 visits i=0 then i=1, block 1 visits i=1 -> both write out[perm(1)]=out[1].
__global__ void nchw_to_nhwc(float* out, const float* in, int N, int C, int H, int W) {
    long total = (long)N * C * H * W;
    for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (long)blockDim.x) {
        long n = i / ((long)C * H * W);
        long c = (i / ((long)H * W)) % C;
        long h = (i / W) % H;
        long w = i % W;
        out[((n * H + h) * W + w) * C + c] = in[i]; //~ race(out)
    }
}
