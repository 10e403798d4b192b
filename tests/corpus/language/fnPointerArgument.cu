//pass
//--blockDim=128 --gridDim=8
//expect: verified

// A reduction step parameterised by the combining function, passed as an
// argument to a device helper; the helper synchronises between the levels.
__device__ float add(float a, float b) { return a + b; }
__device__ float maxf2(float a, float b) { return a > b ? a : b; }

__device__ void tree_reduce(float *buf, float (*combine)(float, float))
{
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) {
            buf[threadIdx.x] = combine(buf[threadIdx.x], buf[threadIdx.x + s]);
        }
        __syncthreads();
    }
}

__global__ void reduce_both(const float *in, float *sums, float *maxima)
{
    __shared__ float buf[128];
    buf[threadIdx.x] = in[blockIdx.x * 128 + threadIdx.x];
    __syncthreads();
    tree_reduce(buf, add);
    if (threadIdx.x == 0) sums[blockIdx.x] = buf[0];
    __syncthreads();
    buf[threadIdx.x] = in[blockIdx.x * 128 + threadIdx.x];
    __syncthreads();
    tree_reduce(buf, &maxf2);
    if (threadIdx.x == 0) maxima[blockIdx.x] = buf[0];
}
