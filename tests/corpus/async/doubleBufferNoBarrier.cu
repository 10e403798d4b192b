//pass
//expect: race

// The twin of doubleBuffer.cu without the barrier at the end of the iteration: the copy
// the next iteration starts goes into the buffer other threads may still be reading.
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
namespace cg = cooperative_groups;

__global__ void pipelinedSumsEager(const float *in, float *out, int tiles)
{
    __shared__ float buf[2][128];
    cg::thread_block block = cg::this_thread_block();
    int t = threadIdx.x;
    float sum = 0.0f;
    const float *mine = in + blockIdx.x * tiles * 128;
    cg::memcpy_async(block, buf[0], mine, sizeof(float) * 128);
    for (int k = 1; k < tiles; k++) {
        cg::memcpy_async(block, buf[k % 2], mine + k * 128, sizeof(float) * 128); //~ race(buf)
        cg::wait_prior<1>(block);
        sum += buf[(k - 1) % 2][(t * 3) % 128];                                    //~ race(buf)
    }
    cg::wait(block);
    sum += buf[(tiles - 1) % 2][(t * 3) % 128];
    out[blockIdx.x * 128 + t] = sum;
}

int main()
{
    float *in, *out;
    pipelinedSumsEager<<<12, 128>>>(in, out, 16);
    return 0;
}
