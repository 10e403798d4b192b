//pass
//--blockDim=256 --gridDim=8
//expect: verified

// A template kernel nobody instantiates in this file: it is checked with `int`
// for T and one symbolic STRIDE shared by every thread. The guard keeps each
// thread on its own element for every stride.
template <typename T, unsigned STRIDE>
__global__ void gather(T *dst, const T *src, int n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (STRIDE > 0 && i < n / STRIDE) {
        dst[i * STRIDE] = src[i];
    }
}
