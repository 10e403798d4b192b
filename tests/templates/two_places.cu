//--blockDim=64 --gridDim=1
// k<64> races on `a` (its read is shifted by 32, k<32>'s by 0), k<32> races on `b`
// (shifted by 32 there, by 64, that is 0, in k<64>): each needs a barrier of its own.
template <int N>
__global__ void k(int *in, int *out)
{
    __shared__ int a[64];
    __shared__ int b[64];
    int t = threadIdx.x;
    a[t] = in[t];
    int x = a[(t + N - 32) % 64];
    b[t] = x;
    out[t] = b[(t + N) % 64];
}
template __global__ void k<32>(int *, int *);
template __global__ void k<64>(int *, int *);
