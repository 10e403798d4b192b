//expect: verified

// Sizes passed to math functions stay what they were: `sqrtf`, `std::pow`, `ceil`
// take their arguments by value (the scale of an attention head, a tile count). Each
// kernel is right only for the head size its launcher computes (64: one thread per
// element of a row); another size would make rows overlap.
#include <cmath>
#include <cuda_runtime.h>

__global__ void scale_heads(float *q, int head_size, float scale)
{
    q[blockIdx.x * head_size + threadIdx.x % head_size] *= scale;
}

__global__ void shift_heads(float *q, int head_size, float by)
{
    q[blockIdx.y * head_size + threadIdx.x % head_size] += by;
}

static void attention_scale(float *q, int rows, int channels, int heads)
{
    int head_size = channels / heads;
    float scale = 1.0f / sqrtf(head_size);
    scale_heads<<<rows, 64>>>(q, head_size, scale);
}

static void attention_shift(float *q, int rows, int channels, int heads)
{
    const int hs = channels / heads;
    const int tiles = (int)ceil(hs / 16.0);
    float by = (float)std::pow(hs, 2) + fabs(tiles);
    shift_heads<<<dim3(1, rows), 64>>>(q, hs, by);
}

int main()
{
    float *q;
    cudaMalloc(&q, 1024 * 768 * sizeof(float));
    attention_scale(q, 1024, 768, 12);
    attention_shift(q, 1024, 768, 12);
    cudaDeviceSynchronize();
    return 0;
}
