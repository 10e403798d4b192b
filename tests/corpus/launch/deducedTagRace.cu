//expect: race

// deducedTag.cu with the tags the wrong way round: the grid of many blocks gets
// `std::bool_constant<false>` and adds with plain stores, and `stage` is launched
// with 128 threads for a ring of 64 cells. The single-block launch of `add_rows`
// still verifies.
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
                sums[c] += rows[row * width + c]; //~ race(sums)
        }
    }
}

template <int TILE>
__global__ void stage(const float *in, float *out, std::integral_constant<int, TILE>)
{
    __shared__ float ring[TILE];
    unsigned at = blockIdx.x * blockDim.x + threadIdx.x;
    ring[threadIdx.x % TILE] = in[at]; //~ race(ring)
    __syncthreads();
    out[at] = ring[(threadIdx.x + 1) % TILE];
}

constexpr int kTile = 64;

void sum_rows(float *sums, const float *rows, int width, int n)
{
    int blocks = (n + 127) / 128;
    if (blocks == 1)
        add_rows<<<1, 128>>>(sums, rows, width, n, std::bool_constant<true>{});
    else
        add_rows<<<blocks, 128>>>(sums, rows, width, n, std::bool_constant<false>{});
}

void stage_all(const float *in, float *out, int n)
{
    stage<<<n / 128, 128>>>(in, out, std::integral_constant<int, kTile>{});
}
