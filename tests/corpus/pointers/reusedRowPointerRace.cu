//--blockDim=256 --gridDim=64
//expect: race
// reusedRowPointer reading its neighbour's output element through `x`: that element
// is written by another thread of the block with no barrier in between.
__global__ void rowScale(float *out, const float *inp, int C)
{
    const float *x = inp + blockIdx.x * C;
    float m = 0.0f;
    for (int i = threadIdx.x; i < C; i += blockDim.x)
        m += x[i];
    for (int i = threadIdx.x; i < C; i += blockDim.x)
        out[blockIdx.x * C + i] = x[i] * m; //~ race(out)
    x = out + blockIdx.x * C;
    float s = 0.0f;
    for (int i = threadIdx.x; i + 1 < C; i += blockDim.x)
        s += x[i + 1]; //~ race(out)
    if (threadIdx.x == 0 && C > 0)
        out[blockIdx.x * C] = s;
}
