//--blockDim=128 --gridDim=1
//expect: verified

// Twin of deviceCallRace.cu: `rotate` has a barrier between its read of the
// neighbour's cell and the write of its own.
__device__ void rotate(int *s, int t)
{
    int right = s[(t + 1) % 128];
    __syncthreads();
    s[t] = right;
}

__global__ void rotateAll(int *g)
{
    __shared__ int s[128];
    s[threadIdx.x] = g[threadIdx.x];
    __syncthreads();
    rotate(s, threadIdx.x);
    __syncthreads();
    g[threadIdx.x] = s[threadIdx.x];
}
