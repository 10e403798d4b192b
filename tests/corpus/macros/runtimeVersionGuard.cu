//pass
//--blockDim=256 --gridDim=8
//expect: verified

// A file that keys its code on the runtime version and the language standard, as
// libraries do: both are those of a current toolkit, so the reduction keeps its
// barrier inside the loop.

#if CUDART_VERSION >= 11000 && __cplusplus >= 201703L
#define STEP_SYNC() __syncthreads()
#else
#define STEP_SYNC()
#endif

__global__ void blockSum(const int *in, int *out) {
    __shared__ int part[256];
    unsigned t = threadIdx.x;
    part[t] = in[blockIdx.x * 256 + t];
    STEP_SYNC();
    for (unsigned s = 128; s > 0; s >>= 1) {
        if (t < s) part[t] += part[t + s];
        STEP_SYNC();
    }
    if (t == 0) out[blockIdx.x] = part[0];
}
