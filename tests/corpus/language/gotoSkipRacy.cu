//fail
//--blockDim=64 --gridDim=1
//expect: race

// Like gotoSkip, but the threads that do not jump write their neighbour's slot of
// the shared array that others still read after the label.
__global__ void scaleTailRacy(float *out, const float *in, int n)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    float r = 0.0f;
    s[t] = in[t];
    __syncthreads();
    if (t >= n) goto epilogue;
    s[(t + 1) % 64] = s[t] * 2.0f; //~ race(s)
epilogue:
    r = s[t]; //~ race(s)
    out[t] = r;
}
