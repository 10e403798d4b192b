//--blockDim=64 --gridDim=1
// Both accesses are inside `if (t < N)`: the only places between them are in the
// block, which diverges in k<32>. No placement serves both instantiations.
template <int N>
__global__ void k(int *out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    if (t < N) {
        s[t] = t;
        out[t] = s[(t + N - 32) % 64];
    }
}
template __global__ void k<32>(int *);
template __global__ void k<64>(int *);
