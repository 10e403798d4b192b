//--blockDim=64 --gridDim=1
//expect: race

// One __device__ function called at two places of the kernel, each call racing on its
// own: each race names the call that reaches it ("called at line 18", "called at line
// 20"), not one for both.
__device__ void shiftLeft(int *s, int t)
{
    int next = s[(t + 1) % 64]; //~ race(s)
    s[t] = next; //~ race(s)
}

__global__ void shiftTwice(int *g)
{
    __shared__ int s[64];
    s[threadIdx.x] = g[threadIdx.x];
    __syncthreads();
    shiftLeft(s, threadIdx.x);
    __syncthreads();
    shiftLeft(s, threadIdx.x);
    __syncthreads();
    g[threadIdx.x] = s[threadIdx.x];
}
