//fail
//--blockDim=64 --gridDim=1
//expect: race

// Like gotoJoin without the barrier: `fix` puts it right after the label.
__global__ void shiftLeftRacy(float *out, const float *in, int n)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    if (t >= n) goto join;
    s[(t + 1) % 64] = in[t]; //~ race(s)
join:
    out[t] = s[t]; //~ race(s)
}
