//expect: race
#include <cuda_runtime.h>
// Same permutation done in place on one array. B=1, NH=2, N=2, d=1:
// thread idx=1 (h=0,n=1) reads buf[1] and writes buf[(1*2+0)]=buf[2];
// thread idx=2 (h=1,n=0) reads buf[2] -> write/read race on buf[2].
__global__ void heads_to_tokens_inplace(float* buf, int B, int NH, int N, int d) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < B * NH * N * d) {
        int b = idx / (NH * N * d);
        int rest = idx % (NH * N * d);
        int h = rest / (N * d);
        rest = rest % (N * d);
        int n = rest / d;
        int k = rest % d;
        float x = buf[idx]; //~ race(buf)
        buf[((b * N + n) * NH + h) * d + k] = x; //~ race(buf)
    }
}
