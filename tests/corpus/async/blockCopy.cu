//pass
//expect: verified

// The block copies its slice of the input into shared memory with one collective
// asynchronous copy, waits for it (which also synchronizes the block), and every thread
// reads an element another thread's part of the copy may have brought in.
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
namespace cg = cooperative_groups;

__global__ void reverseSlice(const float *in, float *out)
{
    __shared__ float slice[256];
    cg::thread_block block = cg::this_thread_block();
    cg::memcpy_async(block, slice, in + blockIdx.x * 256, sizeof(float) * 256);
    cg::wait(block);
    out[blockIdx.x * 256 + threadIdx.x] = slice[255 - threadIdx.x];
}

int main()
{
    float *in, *out;
    reverseSlice<<<8, 256>>>(in, out);
    return 0;
}
