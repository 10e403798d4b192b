//--blockDim=256 --gridDim=8
//expect: verified
// Each warp reduces its values with a butterfly of shuffles, after which every lane
// holds the warp's sum, and every lane stores it in its warp's slot.
__global__ void warpSums(const float *in, float *out)
{
    __shared__ float warpSum[8];
    float v = in[blockIdx.x * blockDim.x + threadIdx.x];
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_xor_sync(0xffffffff, v, offset);
    warpSum[threadIdx.x / 32] = v;
    __syncthreads();
    if (threadIdx.x == 0) {
        float s = 0.0f;
        for (int w = 0; w < 8; ++w)
            s += warpSum[w];
        out[blockIdx.x] = s;
    }
}
