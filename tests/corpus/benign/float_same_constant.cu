//--blockDim=64 --gridDim=8
//expect: verified
// Every thread that sees a positive input marks the output with the same float
// constant: a benign race in GPUVerify's terms.
__global__ void mark(const float *in, float *out)
{
    if (in[blockIdx.x * blockDim.x + threadIdx.x] > 0.0f)
        out[0] = 1.0f;
}
