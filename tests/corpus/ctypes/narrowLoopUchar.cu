//--blockDim=128 --gridDim=1
//expect: race

// p = 4t + r stored in an `unsigned char` wraps for t >= 64: thread t and t - 64 collide.
__global__ void narrowLoopUchar(float *A)
{
    __shared__ float s[512];
    for (int r = 0; r < 4; ++r) {
        unsigned char p = threadIdx.x * 4 + r;
        s[p] = A[threadIdx.x * 4 + r]; //~ race(s)
    }
    __syncthreads();
    A[threadIdx.x] = s[threadIdx.x];
}
