//pass
//--blockDim=128 --gridDim=1
//expect: verified

// An offset doubled from a thread-dependent start: `idx == (tid + 1) * 2^(r+1)`
// in round r, so the threads of one round write distinct cells (a barrier
// separates the rounds).
__global__ void doublingOffset(int *out)
{
    __shared__ int buf[2048];
    unsigned int tid = threadIdx.x;
    unsigned int idx = tid + 1;
    for (int r = 0; r < 3; r++) {
        idx = idx * 2;
        buf[idx] = tid;
        __syncthreads();
    }
    out[tid] = buf[tid];
}
