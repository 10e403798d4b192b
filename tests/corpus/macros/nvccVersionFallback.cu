//pass
//--blockDim=128 --gridDim=4
//expect: verified

// Old compilers lack a helper, so the file brings its own for them; a current nvcc
// takes the other path. With `__CUDACC_VER_MAJOR__` unknown (0 in `#if`) the
// fallback is chosen, and its helper calls itself: unsupported.

#if __CUDACC_VER_MAJOR__ < 12
__device__ void store_streaming(float *p, float v) { store_streaming(p, v); }
#else
__device__ void store_streaming(float *p, float v) { *p = v; }
#endif

__global__ void scaleRows(float *out, const float *in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        store_streaming(out + i, in[i] * 2.0f);
    }
}
