//--blockDim=[32,16] --gridDim=1
//expect: verified

template <typename I> __device__ void put(float *s, unsigned k, float v)
{
    I j = k;
    s[j] = v;
}

// Twin of narrowTemplateIndex with I = int: no wrap.
__global__ void wideTemplateIndex(float *A)
{
    __shared__ float s[512];
    put<int>(s, threadIdx.y * 32 + threadIdx.x, 1.0f);
    __syncthreads();
    A[threadIdx.y * 32 + threadIdx.x] = s[threadIdx.x];
}
