//expect: verified

// Gradients of a fused q/k/v buffer, accumulated slice by slice: each thread owns one
// (batch, position, head, channel) tuple and adds into the q, k and v slices of one row
// of `dqkv`, which are `H*D` apart (three slices per row, so the row stride is
// `3*H*D`). The slice offsets sit in the gap between the head digit and the position
// digit: distinct threads and distinct slices never meet.
#include <cuda_runtime.h>

__global__ void scatter_qkv(float *dqkv, const float *gq, const float *gk, const float *gv,
                            int B, int T, int H, int D)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= B * H * T * D)
        return;
    int batch = i / (H * T * D);
    int head = (i / (T * D)) % H;
    int pos = (i / D) % T;
    int ch = i % D;
    int row = batch * T * 3 * H * D + pos * 3 * H * D + head * D + ch;
    dqkv[row] += gq[i];
    dqkv[row + H * D] += gk[i];
    dqkv[row + 2 * H * D] += gv[i];
}

int main()
{
    int B = 2, T = 256, H = 8, D = 32;
    int n = B * T * H * D;
    float *dqkv, *gq, *gk, *gv;
    cudaMalloc(&dqkv, 3 * n * sizeof(float));
    cudaMalloc(&gq, n * sizeof(float));
    cudaMalloc(&gk, n * sizeof(float));
    cudaMalloc(&gv, n * sizeof(float));
    int threads = 128;
    scatter_qkv<<<(n + threads - 1) / threads, threads>>>(dqkv, gq, gk, gv, B, T, H, D);
    return 0;
}
