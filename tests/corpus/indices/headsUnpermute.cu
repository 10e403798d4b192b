//expect: verified

// The layout change of an attention kernel, by remainders first: the flat index over
// (b, h, t, k) is taken apart with `%` then `/`, and the thread writes the cell of the
// (b, t, h, k) layout. A permutation of the digits: one cell per thread.
#include <cuda_runtime.h>

__global__ void heads_to_rows(float *rows, const float *heads, int B, int H, int T, int D)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= B * H * T * D)
        return;
    int b = idx / (H * T * D);
    int rest = idx % (H * T * D);
    int h = rest / (T * D);
    rest = rest % (T * D);
    int t = rest / D;
    int k = rest % D;
    rows[((b * T + t) * H + h) * D + k] = heads[idx];
}
