//pass
//expect: race

// The twin of tileLoop.cu without the barrier at the end of the iteration: the next
// copy may overwrite an element of the tile another thread has not read yet.
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
namespace cg = cooperative_groups;

__device__ void fetchTile(const cg::thread_block &block, float *tile, const float *src)
{
    cg::memcpy_async(block, tile, src, cuda::aligned_size_t<16>(sizeof(float) * 64)); //~ race(tile)
}

__global__ void tileSumsEager(const float *in, float *out, int tiles)
{
    __shared__ float tile[64];
    cg::thread_block block = cg::this_thread_block();
    int t = threadIdx.x;
    float sum = 0.0f;
    for (int k = 0; k < tiles; k++) {
        fetchTile(block, tile, in + (blockIdx.x * tiles + k) * 64);
        cg::wait(block);
        sum += tile[(t + k) % 64]; //~ race(tile)
    }
    out[blockIdx.x * 64 + t] = sum;
}

int main()
{
    float *in, *out;
    tileSumsEager<<<16, 64>>>(in, out, 8);
    return 0;
}
