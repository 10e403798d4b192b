//fail
//--blockDim=64 --gridDim=4
//expect: divergence 11

// The barrier is inside a branch that only some threads of a block take.
__global__ void halfBarrier(float *p)
{
    __shared__ float s[64];
    s[threadIdx.x] = p[blockIdx.x * 64 + threadIdx.x];
    if (threadIdx.x < 32) {
        __syncthreads();
        p[blockIdx.x * 64 + threadIdx.x] = s[threadIdx.x + 32];
    }
}
