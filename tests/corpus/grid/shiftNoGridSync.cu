//pass
//--blockDim=128 --gridDim=16
//expect: race
//expect-unfixable

// Every thread reads the element a thread of the next block wrote: only a
// grid-wide barrier orders them. The file does not use cooperative groups yet:
// `fix --cooperative` adds `#include <cooperative_groups.h>` and the grid sync.
#include <cuda_runtime.h>

__global__ void shift(float *buf, float *out)
{
    unsigned n = gridDim.x * blockDim.x;
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    buf[i] = out[i] * 2.0f;                  //~ race(buf)
    out[i] = buf[(i + blockDim.x) % n];      //~ race(buf)
}
