//pass
//expect: verified

// A loop over tiles: each iteration copies a tile with the block, waits, accumulates from
// other threads' elements, and a barrier at the end keeps the next copy from
// overwriting the tile while it is read. A helper function starts the copy.
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
namespace cg = cooperative_groups;

__device__ void fetchTile(const cg::thread_block &block, float *tile, const float *src)
{
    cg::memcpy_async(block, tile, src, cuda::aligned_size_t<16>(sizeof(float) * 64));
}

__global__ void tileSums(const float *in, float *out, int tiles)
{
    __shared__ float tile[64];
    cg::thread_block block = cg::this_thread_block();
    int t = threadIdx.x;
    float sum = 0.0f;
    for (int k = 0; k < tiles; k++) {
        fetchTile(block, tile, in + (blockIdx.x * tiles + k) * 64);
        cg::wait(block);
        sum += tile[(t + k) % 64];
        __syncthreads();
    }
    out[blockIdx.x * 64 + t] = sum;
}

int main()
{
    float *in, *out;
    tileSums<<<16, 64>>>(in, out, 8);
    return 0;
}
