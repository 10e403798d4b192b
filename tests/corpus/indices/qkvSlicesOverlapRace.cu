//expect: race

// The twin of qkvSlices.cu with the k slice laid out one head apart instead of one
// slice apart: `row + D` is the next head's channel of the same position, which
// another thread's `row` writes.
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
    dqkv[row] += gq[i]; //~ race(dqkv)
    dqkv[row + D] += gk[i]; //~ race(dqkv)
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
