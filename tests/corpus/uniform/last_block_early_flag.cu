//fail
//--blockDim=64 --gridDim=32
//expect: race

// The flag is read before the barrier that publishes it: the other threads race
// with thread 0's write of `amLast`.

__device__ unsigned int finished;

__global__ void lastBlockEarly(const int *in, int *lastMark)
{
    __shared__ bool amLast;
    __shared__ int vals[64];
    unsigned int tid = threadIdx.x;

    vals[tid] = in[blockIdx.x * 64 + tid];
    if (tid == 0) {
        unsigned int ticket = atomicInc(&finished, gridDim.x);
        amLast = (ticket == gridDim.x - 1); //~ race(amLast)
    }
    if (amLast) { //~ race(amLast)
        __syncthreads();
        if (tid < 32)
            vals[tid] = max(vals[tid], vals[tid + 32]);
        __syncthreads();
        if (tid == 0)
            lastMark[blockIdx.x] = vals[0];
    }
}
