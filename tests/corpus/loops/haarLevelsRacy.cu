//fail
//--blockDim=128 --gridDim=16
//expect: race

// The Haar-style tree sum without the barrier between levels: a thread reads
// the partial sum another thread writes in the level before.
__global__ void haarLevelsRacy(const float *in, float *out)
{
    __shared__ float s[256];
    unsigned int tid = threadIdx.x;
    s[tid] = in[blockIdx.x * 256 + tid];
    s[tid + 128] = in[blockIdx.x * 256 + tid + 128];
    __syncthreads();
    unsigned int active = 128;
    unsigned int stride = 1;
    unsigned int base = tid * 2;
    for (int level = 0; level < 8; level++) {
        if (tid < active) {
            s[base] = s[base] + s[base + stride]; //~ race(s)
            active >>= 1;
            stride <<= 1;
            base <<= 1;
        }
    }
    __syncthreads();
    if (tid == 0)
        out[blockIdx.x] = s[0];
}
