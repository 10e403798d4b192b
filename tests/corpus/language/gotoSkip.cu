//pass
//--blockDim=64 --gridDim=1
//expect: verified

// A forward `goto` over the work of out-of-range threads to a common epilogue; the
// barrier before it is reached by every thread.
__global__ void scaleTail(float *out, const float *in, int n)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    float r = 0.0f;
    s[t] = in[t];
    __syncthreads();
    if (t >= n) goto done;
    r = s[(t + 1) % 64] * 2.0f;
    if (r < 0.0f) goto done;
    r += s[t];
done:
    out[t] = r;
}
