//--blockDim=128 --gridDim=1
//expect: race

// sizeof(a) / sizeof(a[0]) is 16: thread 15 writes s[15] in the loop, and thread 16
// writes s[15] too.
__global__ void sizeofArrayCountRace(int *out)
{
    __shared__ int s[128];
    int a[16];
    unsigned tid = threadIdx.x;
    for (unsigned i = tid; i < sizeof(a) / sizeof(a[0]); i += blockDim.x)
        s[i] = 1;                     //~ race(s)
    if (tid >= 16)
        s[tid - 1] = 2;               //~ race(s)
    out[tid] = 0;
}
