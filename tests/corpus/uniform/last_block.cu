//pass
//--blockDim=64 --gridDim=32
//expect: verified

// "Am I the last block?": thread 0 counts the finished blocks with atomicInc and
// sets a shared flag; after the barrier the whole block agrees on it, so the
// extra work under `if (amLast)` may use barriers.

__device__ unsigned int finished;

__global__ void lastBlockFlag(const int *in, int *blockMax, int *lastMark)
{
    __shared__ bool amLast;
    __shared__ int vals[64];
    unsigned int tid = threadIdx.x;

    vals[tid] = in[blockIdx.x * 64 + tid];
    __syncthreads();
    if (tid == 0) {
        blockMax[blockIdx.x] = vals[0];
        unsigned int ticket = atomicInc(&finished, gridDim.x);
        amLast = (ticket == gridDim.x - 1);
    }
    __syncthreads();
    if (amLast) {
        for (unsigned int s = 32; s > 0; s /= 2) {
            if (tid < s)
                vals[tid] = max(vals[tid], vals[tid + s]);
            __syncthreads();
        }
        if (tid == 0)
            lastMark[blockIdx.x] = vals[0];
    }
}
