//pass
//--blockDim=64 --gridDim=8
//expect: race

// templateFnDevice without the barrier: the neighbour's element may not be loaded yet.
__device__ int neighbour(int t) { return (t + 1) % 64; }

template <int (*from)(int)>
__device__ void shift(float *dst, const float *tile)
{
    dst[blockIdx.x * 64 + threadIdx.x] = tile[from(threadIdx.x)]; //~ race(tile)
}

__global__ void rotate(float *out, const float *in)
{
    __shared__ float tile[64];
    tile[threadIdx.x] = in[blockIdx.x * 64 + threadIdx.x]; //~ race(tile)
    shift<neighbour>(out, tile);
}
