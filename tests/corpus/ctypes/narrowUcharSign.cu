//--blockDim=256 --gridDim=1
//expect: verified

// Twin of narrowScharSign: an `unsigned char` is never negative.
__global__ void narrowUcharSign(int *flag, int *out)
{
    unsigned char sc = threadIdx.x;
    if (sc < 0)
        flag[0] = threadIdx.x;
    out[threadIdx.x] = sc;
}
