//pass
//--blockDim=64 --gridDim=16 --no-inline
//expect: verified

#include <cuda.h>

// A strided copy with the loop invariants GPUVerify needs spelled out.
__global__ void stridedCopy(float *out, const float *in, int n)
{
    __requires(n == 4096);
    __requires(__is_pow2(n));
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    int stride = blockDim.x * gridDim.x;
    for (int i = gid;
         __invariant(i % stride == gid),
         __invariant(__write_implies(out, __write_offset_bytes(out) / sizeof(float) % stride == gid)),
         __global_invariant(__read_implies(in, __read_offset_bytes(in) / sizeof(float) % stride == gid)),
         i < n;
         i += stride) {
        out[i] = in[i] * 2.0f;
    }
    __assert(__implies(gid == 0, stride > 0));
}
