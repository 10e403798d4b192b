//pass
//--blockDim=128 --gridDim=8
//expect: verified

// Thread 0 picks where the block's window starts in a shared staging buffer;
// every thread reads that start (twice, in two statements) in one barrier
// interval and sees one value, so the two writes of each thread stay apart from
// the other threads' writes.

__global__ void stagedCopy(const int *starts, const float *in, float *out)
{
    __shared__ int start;
    __shared__ float stage[2 * 128 + 64];
    unsigned int tid = threadIdx.x;
    unsigned int gid = blockIdx.x * blockDim.x + tid;

    if (tid == 0)
        start = starts[blockIdx.x] & 63;
    __syncthreads();
    stage[start + tid] = in[gid];
    stage[start + blockDim.x + tid] = 2.0f * in[gid];
    __syncthreads();
    out[2 * gid] = stage[start + (tid + 1) % blockDim.x];
    out[2 * gid + 1] = stage[start + blockDim.x + tid];
}
