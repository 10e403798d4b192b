//--blockDim=64 --gridDim=1
// k<64> reads the other half of the block's writes and races; k<32> reads its own
// element and does not. One barrier between the write and the read serves both.
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
