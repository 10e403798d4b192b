//pass
//expect: race

// Twin of streamingStores.cu: a streaming store is a write, and two threads write
// `dst[i / 2]` with different values.
__global__ void copy_hinted(float *dst, const float *src, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        __stcs(dst + i / 2, __ldcs(src + i)); //~ race(dst)
    }
}

int main()
{
    float *dst, *src;
    copy_hinted<<<64, 128>>>(dst, src, 64 * 128);
    return 0;
}
