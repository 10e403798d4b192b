//fail
//--blockDim=64 --gridDim=1
//expect: race

// Like voidPointerArgs without the barrier: the byte-wise copy of thread 0 races
// with the reads of the others.
__device__ void copyBytes(char *dst, const char *src, int n)
{
    for (int k = 0; k < n; k++) dst[k] = src[k]; //~ race(dst)
}

__global__ void byteCopyRacy(float *dst, const float *src, float *out)
{
    int t = threadIdx.x;
    if (t == 0) copyBytes((char *)dst, (const char *)src, 64 * sizeof(float));
    out[t] = dst[t]; //~ race(dst)
}
