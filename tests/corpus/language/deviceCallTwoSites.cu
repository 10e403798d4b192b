//--blockDim=64 --gridDim=1
//expect: verified

// Twin of deviceCallTwoSitesRace.cu: `shiftLeft` separates its read and its write by a
// barrier, at both calls.
__device__ void shiftLeft(int *s, int t)
{
    int next = s[(t + 1) % 64];
    __syncthreads();
    s[t] = next;
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
