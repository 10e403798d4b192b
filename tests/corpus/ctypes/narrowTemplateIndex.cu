//--blockDim=[32,16] --gridDim=1
//expect: race

template <typename I> __device__ void put(float *s, unsigned k, float v)
{
    I j = k;
    s[j] = v; //~ race(s)
}

// Through a template with I = unsigned char: the linear index y*32+x (0..511) wraps at 256.
// (The race inside put is reported at its line, with the call: "in `put`, called at line 15".)
__global__ void narrowTemplateIndex(float *A)
{
    __shared__ float s[512];
    put<unsigned char>(s, threadIdx.y * 32 + threadIdx.x, (float)threadIdx.y);
    __syncthreads();
    A[threadIdx.y * 32 + threadIdx.x] = s[threadIdx.x];
}
