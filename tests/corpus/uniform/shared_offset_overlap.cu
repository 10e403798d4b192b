//fail
//--blockDim=128 --gridDim=8
//expect: race

// The second window starts one element early: thread 0's second write and
// thread 127's first write both land on `start + 127`.

__global__ void stagedOverlap(const int *starts, const float *in, float *out)
{
    __shared__ int start;
    __shared__ float stage[2 * 128 + 64];
    unsigned int tid = threadIdx.x;
    unsigned int gid = blockIdx.x * blockDim.x + tid;

    if (tid == 0)
        start = starts[blockIdx.x] & 63;
    __syncthreads();
    stage[start + tid] = in[gid]; //~ race(stage)
    stage[start + blockDim.x - 1 + tid] = 2.0f * in[gid]; //~ race(stage)
    __syncthreads();
    out[gid] = stage[start + tid] + stage[start + blockDim.x + tid - 1];
}
