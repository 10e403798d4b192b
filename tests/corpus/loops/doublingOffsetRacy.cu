//fail
//--blockDim=128 --gridDim=1
//expect: race

// An offset doubled from a thread-dependent start: `idx == (tid + 1) * 2^(r+1)`
// in round r, but a quarter of it is shared by neighbours in the first round (a barrier
// separates the rounds).
__global__ void doublingOffsetRacy(int *out)
{
    __shared__ int buf[2048];
    unsigned int tid = threadIdx.x;
    unsigned int idx = tid + 1;
    for (int r = 0; r < 3; r++) {
        idx = idx * 2;
        buf[idx / 4] = tid; //~ race(buf)
        __syncthreads();
    }
    out[tid] = buf[tid];
}
