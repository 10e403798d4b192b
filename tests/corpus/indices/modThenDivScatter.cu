//expect: verified
#include <cuda_runtime.h>
// Mod-then-div split of idx over (B, NH, N, d), scattered into (B, N, NH, d).
// The digits (b,h,n,k) are a bijection of idx and ((b*N+n)*NH+h)*d+k is an
// exact mixed-radix number in a permuted base: distinct threads, distinct cells.
__global__ void heads_to_tokens(float* dst, const float* src, int B, int NH, int N, int d) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < B * NH * N * d) {
        int b = idx / (NH * N * d);
        int rest = idx % (NH * N * d);
        int h = rest / (N * d);
        rest = rest % (N * d);
        int n = rest / d;
        int k = rest % d;
        dst[((b * N + n) * NH + h) * d + k] = src[idx];
    }
}
