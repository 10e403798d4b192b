//--blockDim=256 --gridDim=1
//expect: race

// `signed char` of threadIdx.x is negative for threads 128..255, which all write flag[0].
__global__ void narrowScharSign(int *flag, int *out)
{
    signed char sc = threadIdx.x;
    if (sc < 0)
        flag[0] = threadIdx.x; //~ race(flag)
    out[threadIdx.x] = sc;
}
