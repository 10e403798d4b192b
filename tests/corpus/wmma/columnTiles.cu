//pass
//expect: verified

// Each warp of a block stores its 32x8 tile of a column-major matrix with 32 rows
// (leading dimension 32), the tiles side by side: warp w's 8 columns start at column
// 8 w, element 8 w * 32. Then, after a barrier, every thread reads back elements of the
// block's tiles.
#include <mma.h>
using namespace nvcuda;

__global__ void sideBySide(const half *a, const half *b, float *c, float *rowSums)
{
    int warp = threadIdx.x / 32;
    wmma::fragment<wmma::matrix_a, 32, 8, 16, half, wmma::row_major> af;
    wmma::fragment<wmma::matrix_b, 32, 8, 16, half, wmma::row_major> bf;
    wmma::fragment<wmma::accumulator, 32, 8, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    wmma::load_matrix_sync(af, a + warp * 512, 16);
    wmma::load_matrix_sync(bf, b + warp * 128, 8);
    wmma::mma_sync(acc, af, bf, acc);
    float *tiles = c + blockIdx.x * 2048;
    wmma::store_matrix_sync(tiles + warp * 8 * 32, acc, 32, wmma::mem_col_major);
    __syncthreads();
    rowSums[blockIdx.x * 128 + threadIdx.x] = tiles[threadIdx.x] + tiles[threadIdx.x + 128];
}

int main()
{
    const half *a, *b;
    float *c, *sums;
    sideBySide<<<4, 128>>>(a, b, c, sums);
    return 0;
}
