//pass
//expect: race

// The twin of warpTiles.cu without the warp barrier: a lane's load of the A tile reads
// what another lane of its warp may still be writing.
#include <mma.h>
using namespace nvcuda;

__global__ void warpGemm(const half *a, const half *b, float *c)
{
    __shared__ half aTile[4][16 * 16];
    int warp = threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    for (int i = lane; i < 256; i += 32)
        aTile[warp][i] = a[blockIdx.x * 1024 + warp * 256 + i];      //~ race(aTile)
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> af;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> bf;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    wmma::load_matrix_sync(af, aTile[warp], 16);                     //~ race(aTile)
    wmma::load_matrix_sync(bf, b + warp * 256, 16);
    wmma::mma_sync(acc, af, bf, acc);
    wmma::store_matrix_sync(c + blockIdx.x * 1024 + warp * 256, acc, 16, wmma::mem_row_major);
}

int main()
{
    const half *a, *b;
    float *c;
    warpGemm<<<8, 128>>>(a, b, c);
    return 0;
}
