//pass
//--blockDim=64 --gridDim=4
//expect: divergence

// Twin of fnPointerUniform.cu: the pointer depends on the thread, so the
// barrier inside `bump` is reached by only some threads of the block.
__device__ void bump(int *s, int t)
{
    int v = s[t];
    __syncthreads(); //~ divergence
    s[t] = v + 1;
}

__device__ void keep(int *s, int t) { }

__global__ void rotate_some(int *data)
{
    __shared__ int s[64];
    s[threadIdx.x] = data[blockIdx.x * 64 + threadIdx.x];
    __syncthreads();
    void (*rot)(int *, int) = (threadIdx.x < 32) ? bump : keep;
    rot(s, threadIdx.x);
    __syncthreads();
    data[blockIdx.x * 64 + threadIdx.x] = s[threadIdx.x];
}
