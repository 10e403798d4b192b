//--blockDim=64 --gridDim=1
//expect: race

// The callee reaches shared memory through a pointer stored in a struct argument.
struct Span {
    float *base;
    int length;
};

__device__ void clear(Span s);

__global__ void reset(float *out)
{
    __shared__ float acc[64];
    acc[threadIdx.x] = 1.0f; //~ race(acc)
    Span s;
    s.base = acc;
    s.length = 64;
    clear(s); //~ race(acc)
    out[threadIdx.x] = acc[threadIdx.x]; //~ race(acc)
}
