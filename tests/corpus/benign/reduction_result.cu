//--blockDim=128 --gridDim=16
//expect: verified
// After a tree reduction in shared memory every thread stores the block's sum. All of
// them read `s[0]` in the same barrier interval, so they store the same value.
__global__ void blockSum(const int *in, int *out)
{
    __shared__ int s[128];
    unsigned t = threadIdx.x;
    s[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (unsigned d = blockDim.x / 2; d > 0; d >>= 1) {
        if (t < d)
            s[t] += s[t + d];
        __syncthreads();
    }
    out[blockIdx.x] = s[0];
}
