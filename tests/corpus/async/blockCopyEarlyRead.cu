//pass
//expect: race

// The twin of blockCopy.cu that reads the shared slice before waiting for the copy: the
// element may not have arrived yet, and whichever thread copies it writes it while this
// thread reads it.
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
namespace cg = cooperative_groups;

__global__ void reverseSliceEarly(const float *in, float *out)
{
    __shared__ float slice[256];
    cg::thread_block block = cg::this_thread_block();
    cg::memcpy_async(block, slice, in + blockIdx.x * 256, sizeof(float) * 256); //~ race(slice)
    float v = slice[255 - threadIdx.x];                                          //~ race(slice)
    cg::wait(block);
    out[blockIdx.x * 256 + threadIdx.x] = v;
}

int main()
{
    float *in, *out;
    reverseSliceEarly<<<8, 256>>>(in, out);
    return 0;
}
