//pass
//expect: verified

// Double buffering with cooperative groups: while the block sums the tile that has
// arrived, the copy of the next tile into the other buffer is in flight. wait_prior<1>
// completes the older copy (and synchronizes the block); the barrier at the end of the
// iteration keeps the next copy off the buffer still being read.
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
namespace cg = cooperative_groups;

__global__ void pipelinedSums(const float *in, float *out, int tiles)
{
    __shared__ float buf[2][128];
    cg::thread_block block = cg::this_thread_block();
    int t = threadIdx.x;
    float sum = 0.0f;
    const float *mine = in + blockIdx.x * tiles * 128;
    cg::memcpy_async(block, buf[0], mine, sizeof(float) * 128);
    for (int k = 1; k < tiles; k++) {
        cg::memcpy_async(block, buf[k % 2], mine + k * 128, sizeof(float) * 128);
        cg::wait_prior<1>(block);
        sum += buf[(k - 1) % 2][(t * 3) % 128];
        block.sync();
    }
    cg::wait(block);
    sum += buf[(tiles - 1) % 2][(t * 3) % 128];
    out[blockIdx.x * 128 + t] = sum;
}

int main()
{
    float *in, *out;
    pipelinedSums<<<12, 128>>>(in, out, 16);
    return 0;
}
