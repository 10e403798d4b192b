//--blockDim=256 --gridDim=16
//expect: verified
// A per-block histogram in shared memory from arbitrary input bytes, merged into the
// global histogram with atomics.
__global__ void histogram(const unsigned char *data, unsigned int n, unsigned int *g_hist)
{
    __shared__ unsigned int s_hist[256];
    unsigned int tid = threadIdx.x;
    s_hist[tid] = 0;
    __syncthreads();
    for (unsigned int i = blockIdx.x * blockDim.x + tid; i < n; i += blockDim.x * gridDim.x) {
        unsigned int bin = data[i];
        atomicAdd(&s_hist[bin], 1);
    }
    __syncthreads();
    atomicAdd(&g_hist[tid], s_hist[tid]);
}
