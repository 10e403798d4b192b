//pass
//--blockDim=256 --gridDim=16
//expect: race
//expect-unfixable

// The histogram merge with a block barrier where the grid-wide sync belongs: rows
// written by other blocks are not ordered with the merge.
// Grid-wide histogram: each block counts its slice into a shared histogram and
// copies it to its own row of `rows`; after the grid-wide sync, thread `b` of every
// block merges bin `blockIdx.x * blockDim.x + b` over all rows.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#define BINS 256

__global__ void histogram(const unsigned char *data, unsigned *rows, unsigned *hist, int len)
{
    __shared__ unsigned local[BINS];
    cg::grid_group grid = cg::this_grid();
    unsigned t = threadIdx.x;
    local[t] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + t; i < len; i += gridDim.x * blockDim.x) {
        atomicAdd(&local[data[i]], 1u);
    }
    __syncthreads();
    rows[blockIdx.x * BINS + t] = local[t]; //~ race(rows)
    __syncthreads();
    unsigned bin = blockIdx.x * blockDim.x + t;
    if (bin < BINS) {
        unsigned sum = 0;
        for (unsigned r = 0; r < gridDim.x; ++r) {
            sum += rows[r * BINS + bin]; //~ race(rows)
        }
        hist[bin] = sum;
    }
}
