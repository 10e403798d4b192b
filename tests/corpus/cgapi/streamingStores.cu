//pass
//expect: verified

// Cache-hinted loads and stores (`__ldcs`, `__stcs`, `__stcg`, `__stwt`) are plain
// reads and writes of the element they point to.
__global__ void copy_hinted(float *dst, float4 *dst4, const float *src, const float4 *src4, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        __stcs(dst + i, __ldcs(src + i) * 2.0f);
        __stcg(&dst4[i], __ldcg(&src4[i]));
    }
    if (i == 0) {
        __stwt(dst + n, 0.0f);
    }
}

int main()
{
    float *dst, *src;
    float4 *dst4, *src4;
    copy_hinted<<<64, 128>>>(dst, dst4, src, src4, 64 * 128);
    return 0;
}
