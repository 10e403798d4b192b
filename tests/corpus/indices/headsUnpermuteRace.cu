//expect: race

// Twin of headsUnpermute.cu that forgets the head: `h` is left out of the output index,
// so the H heads of one (b, t, k) write one cell (H = 2, T = D = 1: threads 0 and 1).
#include <cuda_runtime.h>

__global__ void heads_to_rows(float *rows, const float *heads, int B, int H, int T, int D)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= B * H * T * D)
        return;
    int b = idx / (H * T * D);
    int rest = idx % (H * T * D);
    rest = rest % (T * D);
    int t = rest / D;
    int k = rest % D;
    rows[(b * T + t) * D + k] = heads[idx];  //~ race(rows)
}
