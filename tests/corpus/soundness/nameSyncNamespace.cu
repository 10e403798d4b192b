//--blockDim=32 --gridDim=1
//expect: race

namespace util {
// Not a barrier: a helper of this file that happens to be called `sync`.
__device__ void sync(float *buf, float v) { buf[(threadIdx.x + 1) % 32] = v; } //~ race(buf)
}

__global__ void rotate(const float *in, float *out)
{
    __shared__ float buf[32];
    buf[threadIdx.x] = in[threadIdx.x]; //~ race(buf)
    util::sync(buf, 2.0f);
    out[threadIdx.x] = buf[threadIdx.x]; //~ race(buf)
}
