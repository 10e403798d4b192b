//--blockDim=64 --gridDim=1
//expect: divergence

// A barrier inside a __device__ function that only some threads call: the divergence
// is reported at the barrier's line in `publish`, with the call that reaches it
// ("in `publish`, called at line 19").
__device__ void publish(int *s, int t)
{
    __syncthreads(); //~ divergence
    s[t] = t;
}

__global__ void halfPublish(int *g)
{
    __shared__ int s[64];
    s[threadIdx.x] = 0;
    __syncthreads();
    if (threadIdx.x < 32)
        publish(s, threadIdx.x);
    __syncthreads();
    g[threadIdx.x] = s[threadIdx.x];
}
