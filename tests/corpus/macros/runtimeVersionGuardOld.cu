//fail
//--blockDim=256 --gridDim=8 -DCUDART_VERSION=10020
//expect: race

// runtimeVersionGuard.cu against a CUDA 10.2 runtime: the macro expands to nothing,
// and the tree reduction races.

#if CUDART_VERSION >= 11000 && __cplusplus >= 201703L
#define STEP_SYNC() __syncthreads()
#else
#define STEP_SYNC()
#endif

__global__ void blockSum(const int *in, int *out) {
    __shared__ int part[256];
    unsigned t = threadIdx.x;
    part[t] = in[blockIdx.x * 256 + t]; //~ race(part)
    STEP_SYNC();
    for (unsigned s = 128; s > 0; s >>= 1) {
        if (t < s) part[t] += part[t + s]; //~ race(part)
        STEP_SYNC();
    }
    if (t == 0) out[blockIdx.x] = part[0];
}
