//--blockDim=128 --gridDim=32
//expect: verified
// Thread 0 finds the row maximum, the barrier publishes it, and then every thread
// records the row's normaliser: one value, read alike by the whole block.
__global__ void rowNormaliser(const float *in, float *norm, int cols)
{
    __shared__ float rowMax;
    if (threadIdx.x == 0) {
        float m = in[blockIdx.x * cols];
        for (int c = 1; c < cols; ++c)
            m = fmaxf(m, in[blockIdx.x * cols + c]);
        rowMax = m;
    }
    __syncthreads();
    float mx = rowMax;
    norm[blockIdx.x] = expf(-mx);
}
