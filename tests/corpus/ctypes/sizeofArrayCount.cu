//--blockDim=128 --gridDim=1
//expect: verified

// sizeof(a) / sizeof(a[0]) is the element count of `a` (16): the loop writes s[0..15],
// one per thread, and the threads from 17 on write s[16..126].
__global__ void sizeofArrayCount(int *out)
{
    __shared__ int s[128];
    int a[16];
    unsigned tid = threadIdx.x;
    for (unsigned i = tid; i < sizeof(a) / sizeof(a[0]); i += blockDim.x)
        s[i] = 1;
    if (tid >= 17)
        s[tid - 1] = 2;
    out[tid] = 0;
}
