//expect: race

// lambdaStep.cu with the races a lambda hides: `step` writes the shared staging row
// that another thread reads, with no barrier between; `at` reads the tile before the
// barrier; `bump`, which takes its argument by reference, updates a shared cell that
// two threads share. Each race is reported in the lambda, called at its line.
#include <cuda_runtime.h>

__global__ void stage_rows(const float *in, float *out, int width)
{
    __shared__ float staged[512];
    auto step = [&](int c) {
        staged[c] = in[blockIdx.x * width + c]; //~ race(staged)
    };
    for (int c = threadIdx.x; c < width; c += blockDim.x)
        step(c);
    out[blockIdx.x * blockDim.x + threadIdx.x] = staged[(threadIdx.x + 1) % width]; //~ race(staged)
}

__global__ void tile_sum(const float *in, float *out)
{
    __shared__ float tile[256];
    auto at = [&](int i) -> float { return tile[i % 256]; }; //~ race(tile)
    tile[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x]; //~ race(tile)
    float s = at(threadIdx.x + 1);
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

__global__ void bump_neighbour(float *out)
{
    __shared__ float cells[256];
    auto bump = [](float &x, float by) { x += by; }; //~ race(cells)
    cells[threadIdx.x] = 0.0f;
    __syncthreads();
    bump(cells[threadIdx.x / 2], 1.0f);
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = cells[threadIdx.x];
}

int main()
{
    float *a, *b;
    cudaMalloc(&a, 1 << 20);
    cudaMalloc(&b, 1 << 20);
    stage_rows<<<64, 128>>>(a, b, 512);
    tile_sum<<<64, 256>>>(a, b);
    bump_neighbour<<<64, 256>>>(b);
    return 0;
}
