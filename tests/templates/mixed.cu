//--blockDim=64 --gridDim=1
// A kernel that is no template, next to a template: it is synthesized alone, as always.
__global__ void rotate(int *in, int *out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = in[t];
    if (t < 32) {
        out[t] = s[63 - t];
    }
}

template <int N>
__global__ void k(int *in, int *out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = in[t];
    out[t] = s[(t + N - 32) % 64];
}
template __global__ void k<32>(int *, int *);
template __global__ void k<64>(int *, int *);
