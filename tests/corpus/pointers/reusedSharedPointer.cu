//--blockDim=128 --gridDim=16
//expect: verified
// A staging pointer moves from one shared buffer to the other in straight-line code;
// the barrier orders each buffer's writes before its rotated reads.
__global__ void twoStage(float *out, const float *in)
{
    __shared__ float first[128];
    __shared__ float second[128];
    float *stage = first;
    stage[threadIdx.x] = in[blockIdx.x * 128 + threadIdx.x];
    __syncthreads();
    float v = stage[(threadIdx.x + 1) % 128];
    stage = second;
    stage[threadIdx.x] = v * 2.0f;
    __syncthreads();
    out[blockIdx.x * 128 + threadIdx.x] = stage[(threadIdx.x + 3) % 128];
}
