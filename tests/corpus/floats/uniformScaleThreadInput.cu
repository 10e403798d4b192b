//--blockDim=64 --gridDim=8
//expect: race
// uniformScale reading one element per thread: the threads of a block store
// different scales into one element.
__global__ void rowScale(float *scale, const float *rowMax, float alpha, float beta)
{
    float m = rowMax[blockIdx.x * blockDim.x + threadIdx.x];
    float s = alpha / (m + 1e-6f) + beta;
    scale[blockIdx.x] = s; //~ race(scale)
}
