//pass
//--blockDim=[16,16] --gridDim=[8,8]
//expect: verified

#define TS 16

// C++ AMP "tiled matrix multiplication" ported to CUDA: tile_static arrays are
// __shared__, tile barriers are __syncthreads.
__global__ void mxm_amp_tiled(const float *va, const float *vb, float *vresult, int M, int N, int W)
{
    __requires(M == 128);
    __requires(N == 128);
    __requires(W == 128);
    int row = threadIdx.y + blockIdx.y * blockDim.y;
    int col = threadIdx.x + blockIdx.x * blockDim.x;
    int lrow = threadIdx.y;
    int lcol = threadIdx.x;
    float result = 0.0f;
    for (int i = 0; i < W; i += TS) {
        __shared__ float locA[TS][TS];
        __shared__ float locB[TS][TS];
        locA[lrow][lcol] = va[row * W + i + lcol];
        locB[lrow][lcol] = vb[(i + lrow) * N + col];
        __syncthreads();
        for (int k = 0; k < TS; k++)
            result += locA[lrow][k] * locB[k][lcol];
        __syncthreads();
    }
    vresult[row * N + col] = result;
}
