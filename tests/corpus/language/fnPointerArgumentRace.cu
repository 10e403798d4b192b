//pass
//--blockDim=128 --gridDim=8
//expect: race

// Twin of fnPointerArgument.cu: the helper forgot the barrier between the
// levels, and the function it is given is called through the pointer.
__device__ float add(float a, float b) { return a + b; }

__device__ void tree_reduce(float *buf, float (*combine)(float, float))
{
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) {
            buf[threadIdx.x] = combine(buf[threadIdx.x], buf[threadIdx.x + s]); //~ race(buf)
        }
    }
}

__global__ void reduce_sum(const float *in, float *sums)
{
    __shared__ float buf[128];
    buf[threadIdx.x] = in[blockIdx.x * 128 + threadIdx.x];
    __syncthreads();
    tree_reduce(buf, add);
    __syncthreads();
    if (threadIdx.x == 0) sums[blockIdx.x] = buf[0];
}
