//expect: verified

// Template arguments deduced from tag arguments, as llm.c's
// `matmul_backward_bias_kernel8` takes `std::bool_constant<Atomic>`: no launch
// writes `<...>`, C++ deduces them from the last argument's type. `add_rows` adds
// its rows into `sums` with plain stores, right only for a single block, or with
// `atomicAdd`; the host picks the tag by the grid's size. `stage` keeps a ring of
// TILE cells and is right only for blocks of at most TILE threads; its TILE comes
// from a `std::integral_constant` built from the same constant as the block size.
#include <cuda_runtime.h>
#include <type_traits>

template <bool Atomic>
__global__ void add_rows(float *sums, const float *rows, int width, int n, std::bool_constant<Atomic>)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= n)
        return;
    for (int c = 0; c < width; c++) {
        if constexpr (Atomic) {
            atomicAdd(&sums[c], rows[row * width + c]);
        } else {
            if (threadIdx.x == 0)
                sums[c] += rows[row * width + c];
        }
    }
}

template <int TILE>
__global__ void stage(const float *in, float *out, std::integral_constant<int, TILE>)
{
    __shared__ float ring[TILE];
    unsigned at = blockIdx.x * blockDim.x + threadIdx.x;
    ring[threadIdx.x % TILE] = in[at];
    __syncthreads();
    out[at] = ring[(threadIdx.x + 1) % TILE];
}

constexpr int kTile = 64;

void sum_rows(float *sums, const float *rows, int width, int n)
{
    int blocks = (n + 127) / 128;
    if (blocks == 1)
        add_rows<<<1, 128>>>(sums, rows, width, n, std::false_type{});
    else
        add_rows<<<blocks, 128>>>(sums, rows, width, n, std::true_type());
}

void stage_all(const float *in, float *out, int n)
{
    stage<<<n / kTile, kTile>>>(in, out, std::integral_constant<int, kTile>{});
}
