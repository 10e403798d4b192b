//--blockDim=64 --gridDim=1
// The read is guarded by `t < N`: every thread of the block passes it in k<64> (a
// barrier inside is uniform there, and half the cost of one before the `if`), half of
// them in k<32> (a barrier inside diverges). Only k<64> races.
template <int N>
__global__ void k(int *out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = t;
    if (t < N) {
        out[t] = s[(t + N - 32) % 64];
    }
}
template __global__ void k<32>(int *);
template __global__ void k<64>(int *);
