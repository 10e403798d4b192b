//pass
//expect: verified

// The twin of readBackRace.cu with a warp barrier between the store and the read-back:
// the tile is the warp's own, so `__syncwarp()` orders them.
#include <mma.h>
using namespace nvcuda;

__global__ void readBack(const half *a, const half *b, float *c)
{
    int warp = threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> af;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> bf;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::load_matrix_sync(af, a, 16);
    wmma::load_matrix_sync(bf, b, 16);
    wmma::fill_fragment(acc, 0.0f);
    wmma::mma_sync(acc, af, bf, acc);
    float *tile = c + (blockIdx.x * 4 + warp) * 256;
    wmma::store_matrix_sync(tile, acc, 16, wmma::mem_row_major);
    __syncwarp();
    tile[lane] = tile[lane] * 2.0f;
}

int main()
{
    const half *a, *b;
    float *c;
    readBack<<<2, 128>>>(a, b, c);
    return 0;
}
