//pass
//--blockDim=64 --gridDim=1
//expect: verified

// Threads past `n` jump over the store; the barrier right after the label is where
// the jumping and the storing threads meet, so it is reached by all.
__global__ void shiftLeft(float *out, const float *in, int n)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    if (t >= n) goto join;
    s[(t + 1) % 64] = in[t];
join:
    __syncthreads();
    out[t] = s[t];
}
