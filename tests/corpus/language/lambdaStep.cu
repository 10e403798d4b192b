//expect: verified

// Lambdas in device code, inlined where they are called. `scale_rows` factors the
// repeated part of a split loop into `step`, which captures by reference the row
// pointer, the accumulator array and the factor (as llm.c's attention backward
// kernels do); `tile_sum` calls a lambda that returns a value from shared memory and
// one that takes its argument by reference; `no_capture` captures nothing.
#include <cuda_runtime.h>

__global__ void scale_rows(const float *in, float *out, int width)
{
    const float *row = in + blockIdx.x * width;
    float acc[4] = {};
    float factor = 0.5f;
    auto step = [&](int c) {
        float v = row[c] * factor;
        for (int k = 0; k < 4; k++)
            acc[k] += v;
    };
    int c = threadIdx.x;
    for (; c < width / 2; c += blockDim.x)
        step(c);
    for (; c < width; c += blockDim.x)
        step(c);
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc[0] + acc[3];
}

__global__ void tile_sum(const float *in, float *out)
{
    __shared__ float tile[256];
    auto at = [&](int i) -> float { return tile[i % 256]; };
    auto bump = [](float &x, float by) { x += by; };
    tile[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
    __syncthreads();
    float s = at(threadIdx.x) ;
    bump(s, at(threadIdx.x + 1));
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

__global__ void no_capture(float *data, int n)
{
    auto twice = [](float x) { return 2.0f * x; };
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        data[i] = twice(data[i]);
}

int main()
{
    float *a, *b;
    cudaMalloc(&a, 1 << 20);
    cudaMalloc(&b, 1 << 20);
    scale_rows<<<64, 128>>>(a, b, 512);
    tile_sum<<<64, 256>>>(a, b);
    no_capture<<<64, 256>>>(a, 64 * 256);
    return 0;
}
