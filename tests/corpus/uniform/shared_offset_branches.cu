//pass
//--blockDim=64 --gridDim=8
//expect: verified

// The first thread of the block reads the shared base on its own path, the others
// on theirs: two statements, one barrier interval, no write in between, so all of
// them see one base and the writes stay one per thread.

__global__ void splitPaths(const int *bases, const int *in, int *out)
{
    __shared__ int base;
    __shared__ int buf[64 + 128];
    unsigned int tid = threadIdx.x;

    if (tid == 0)
        base = bases[blockIdx.x] & 127;
    __syncthreads();
    if (tid == 0)
        buf[base] = -1;
    else
        buf[base + tid] = in[blockIdx.x * 64 + tid];
    __syncthreads();
    out[blockIdx.x * 64 + tid] = buf[base + (tid + 1) % 64];
}
