//--blockDim=128 --gridDim=32
//expect: race
// broadcastMax without the barrier: the other threads may read rowMax before thread 0
// stores it, and so store a different normaliser.
__global__ void rowNormaliser(const float *in, float *norm, int cols)
{
    __shared__ float rowMax;
    if (threadIdx.x == 0) {
        float m = in[blockIdx.x * cols];
        for (int c = 1; c < cols; ++c)
            m = fmaxf(m, in[blockIdx.x * cols + c]);
        rowMax = m; //~ race(rowMax)
    }
    float mx = rowMax; //~ race(rowMax)
    norm[blockIdx.x] = expf(-mx);
}
