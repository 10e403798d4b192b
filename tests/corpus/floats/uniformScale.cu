//--blockDim=64 --gridDim=8
//expect: verified
// The threads of a block all store the block's row scale, computed from the float
// parameters and the block's own input element.
__global__ void rowScale(float *scale, const float *rowMax, float alpha, float beta)
{
    float m = rowMax[blockIdx.x];
    float s = alpha / (m + 1e-6f) + beta;
    scale[blockIdx.x] = s;
}
