//--blockDim=128 --gridDim=4
//expect: verified
// atomicInc with the largest bound never wraps in a run: a counter like atomicAdd of 1,
// in shared memory (per block, reset first) and in global memory.
__global__ void tickets(unsigned int *g_next, int *g_out, int *out)
{
    __shared__ unsigned int s_next;
    __shared__ int s_out[128];
    if (threadIdx.x == 0)
        s_next = 0;
    __syncthreads();
    s_out[atomicInc(&s_next, 0xffffffffu)] = threadIdx.x;
    g_out[atomicInc(g_next, 0xffffffffu)] = threadIdx.x;
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = s_out[threadIdx.x];
}
