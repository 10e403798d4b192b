//expect: verified
#include <cuda_runtime.h>
// Bound i <= total (off by one, out of bounds) but NOT a race: i = total maps to
// index total, which no in-range i reaches, and each i is visited by one thread.
__global__ void k(float* out, const float* in, int N, int C, int HW) {
    int total = N * C * HW;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i <= total; i += blockDim.x * gridDim.x) {
        int n = i / (C * HW);
        int c = (i / HW) % C;
        int p = i % HW;
        out[(n * HW + p) * C + c] = in[i];
    }
}
