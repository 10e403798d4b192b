//fail
//--blockDim=64 --gridDim=32
//expect: divergence

// The flag is a local variable: only thread 0 learns that its block is the last
// one, so only thread 0 runs the reduction and its barriers.

__device__ unsigned int finished;

__global__ void lastBlockPrivate(const int *in, int *lastMark)
{
    __shared__ int vals[64];
    unsigned int tid = threadIdx.x;
    bool amLast = false;

    vals[tid] = in[blockIdx.x * 64 + tid];
    __syncthreads();
    if (tid == 0) {
        unsigned int ticket = atomicInc(&finished, gridDim.x);
        amLast = (ticket == gridDim.x - 1);
    }
    __syncthreads();
    if (amLast) {
        for (unsigned int s = 32; s > 0; s /= 2) {
            if (tid < s)
                vals[tid] = max(vals[tid], vals[tid + s]);
            __syncthreads(); //~ divergence
        }
        if (tid == 0)
            lastMark[blockIdx.x] = vals[0];
    }
}
