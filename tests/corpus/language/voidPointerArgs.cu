//pass
//--blockDim=64 --gridDim=1
//expect: verified

// Kernel arrays cast to `char *` and `void *` for byte-wise helpers: one thread
// copies, after a barrier everyone reads.
__device__ void copyBytes(char *dst, const char *src, int n)
{
    for (int k = 0; k < n; k++) dst[k] = src[k];
}

__device__ void dump(const void *p, int n)
{
    printf("%p %d\n", p, n);
}

__global__ void byteCopy(float *dst, const float *src, float *out)
{
    int t = threadIdx.x;
    if (t == 0) copyBytes((char *)dst, (const char *)src, 64 * sizeof(float));
    dump((void *)dst, 64);
    __syncthreads();
    out[t] = dst[t];
}
