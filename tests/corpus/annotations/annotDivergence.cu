//fail
//--blockDim=64 --gridDim=4
//expect: divergence

// The barrier is inside a branch that only some threads of a block take.
__global__ void halfBarrier(float *p)
{
    __shared__ float s[64];
    s[threadIdx.x] = p[blockIdx.x * 64 + threadIdx.x]; //~ race(s)
    if (threadIdx.x < 32) {
        __syncthreads(); //~ divergence
        p[blockIdx.x * 64 + threadIdx.x] = s[threadIdx.x + 32]; //~ race(s)
    }
}
