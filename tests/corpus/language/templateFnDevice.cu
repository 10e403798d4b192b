//pass
//--blockDim=64 --gridDim=8
//expect: verified

// A device function template takes the function it applies as a template argument;
// the kernel passes `neighbour`, whose reads stay in the block's own tile.
__device__ int neighbour(int t) { return (t + 1) % 64; }

template <int (*from)(int)>
__device__ void shift(float *dst, const float *tile)
{
    dst[blockIdx.x * 64 + threadIdx.x] = tile[from(threadIdx.x)];
}

__global__ void rotate(float *out, const float *in)
{
    __shared__ float tile[64];
    tile[threadIdx.x] = in[blockIdx.x * 64 + threadIdx.x];
    __syncthreads();
    shift<neighbour>(out, tile);
}
