//--blockDim=64 --gridDim=1
//expect: verified

// Only thread 0 calls it, and a barrier separates it from every other access.
struct Span {
    float *base;
    int length;
};

__device__ void clear(Span s);

__global__ void reset(float *out)
{
    __shared__ float acc[64];
    acc[threadIdx.x] = 1.0f;
    __syncthreads();
    if (threadIdx.x == 0) {
        Span s;
        s.base = acc;
        s.length = 64;
        clear(s);
    }
    __syncthreads();
    out[threadIdx.x] = acc[threadIdx.x];
}
