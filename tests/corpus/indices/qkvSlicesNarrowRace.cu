//expect: race

// Three slices in rows that have room for two: the row stride is `2*H*D`, so the
// third slice (`row + 2*H*D`) is the first slice of the next position's row, which
// another thread writes.
#include <cuda_runtime.h>

__global__ void scatter3(float *out, const float *a, const float *b, const float *c, int T, int H, int D)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= H * T * D)
        return;
    int head = i / (T * D);
    int pos = (i / D) % T;
    int ch = i % D;
    int row = pos * 2 * H * D + head * D + ch;
    out[row] += a[i]; //~ race(out)
    out[row + H * D] += b[i];
    out[row + 2 * H * D] += c[i]; //~ race(out)
}

int main()
{
    int T = 64, H = 4, D = 16;
    int n = T * H * D;
    float *out, *a, *b, *c;
    cudaMalloc(&out, 3 * n * sizeof(float));
    cudaMalloc(&a, n * sizeof(float));
    cudaMalloc(&b, n * sizeof(float));
    cudaMalloc(&c, n * sizeof(float));
    scatter3<<<n / 256, 256>>>(out, a, b, c, T, H, D);
    return 0;
}
