//fail
//--blockDim=128 --gridDim=8
//expect: race

// Each round, thread 0 moves the window after the first barrier; the other
// threads read the start again for their second access in that same interval,
// so they race with the move (and may see either start).

__global__ void movingWindow(const int *starts, const float *in, float *out, int rounds)
{
    __shared__ int start;
    __shared__ float stage[4 * 128];
    unsigned int tid = threadIdx.x;

    if (tid == 0)
        start = starts[blockIdx.x] & 127;
    __syncthreads();
    for (int r = 0; r < rounds; r++) {
        stage[start + tid] = in[blockIdx.x * 128 + tid];
        __syncthreads();
        if (tid == 0)
            start = (start + 64) & 255; //~ race(start)
        out[blockIdx.x * 128 + tid] = stage[start + tid]; //~ race(start)
        __syncthreads();
    }
}
