//--blockDim=128 --gridDim=16
//expect: race
// reusedSharedPointer without the second barrier: the rotated read of `second` meets
// another thread's write of it.
__global__ void twoStage(float *out, const float *in)
{
    __shared__ float first[128];
    __shared__ float second[128];
    float *stage = first;
    stage[threadIdx.x] = in[blockIdx.x * 128 + threadIdx.x];
    __syncthreads();
    float v = stage[(threadIdx.x + 1) % 128];
    stage = second;
    stage[threadIdx.x] = v * 2.0f; //~ race(second)
    out[blockIdx.x * 128 + threadIdx.x] = stage[(threadIdx.x + 3) % 128]; //~ race(second)
}
