//pass
//--blockDim=64 --gridDim=4
//expect: verified

// The pointer is chosen by a kernel parameter, the same in every thread, and
// every candidate contains a barrier: no divergence, no race.
__device__ void shift_left(int *s, int t)
{
    int v = s[(t + 1) & 63];
    __syncthreads();
    s[t] = v;
}

__device__ void shift_right(int *s, int t)
{
    int v = s[(t + 63) & 63];
    __syncthreads();
    s[t] = v;
}

__global__ void rotate(int *data, bool left)
{
    __shared__ int s[64];
    s[threadIdx.x] = data[blockIdx.x * 64 + threadIdx.x];
    __syncthreads();
    void (*rot)(int *, int) = left ? shift_left : shift_right;
    rot(s, threadIdx.x);
    __syncthreads();
    data[blockIdx.x * 64 + threadIdx.x] = s[threadIdx.x];
}
