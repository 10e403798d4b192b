//fail
//--blockDim=64 --gridDim=8
//expect: race

// The first thread moves the base on its own path while the others read it on
// theirs, in the same barrier interval.

__global__ void splitPathsMoved(const int *bases, const int *in, int *out)
{
    __shared__ int base;
    __shared__ int buf[64 + 128];
    unsigned int tid = threadIdx.x;

    if (tid == 0)
        base = bases[blockIdx.x] & 127;
    __syncthreads();
    if (tid == 0) {
        base = base + 64; //~ race(base)
        buf[base] = -1;
    } else
        buf[base + tid] = in[blockIdx.x * 64 + tid]; //~ race(base)
    __syncthreads();
    out[blockIdx.x * 64 + tid] = buf[base + (tid + 1) % 64];
}
