//--blockDim=256 --gridDim=64
//expect: verified
// One row per block: `x` first walks the input row, then (reassigned in the same
// statement list) the output row the block itself wrote. Each thread reads back only
// the elements it wrote, so the block's two phases need no barrier, and no block
// touches another's row.
__global__ void rowScale(float *out, const float *inp, int C)
{
    const float *x = inp + blockIdx.x * C;
    float m = 0.0f;
    for (int i = threadIdx.x; i < C; i += blockDim.x)
        m += x[i];
    for (int i = threadIdx.x; i < C; i += blockDim.x)
        out[blockIdx.x * C + i] = x[i] * m;
    x = out + blockIdx.x * C;
    float s = 0.0f;
    for (int i = threadIdx.x; i < C; i += blockDim.x)
        s += x[i];
    for (int i = threadIdx.x; i < C; i += blockDim.x)
        out[blockIdx.x * C + i] = x[i] / s;
}
