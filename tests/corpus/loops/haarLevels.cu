//pass
//--blockDim=128 --gridDim=16
//expect: verified

// A pairwise tree sum in the style of the Haar wavelet: the number of active
// threads, the stride and each thread's base index change only inside
// `if (tid < active)`, so they have no closed form; the verifier proves
// `tid < active -> active == 128 >> level && stride == 1 << level && ...`.
__global__ void haarLevels(const float *in, float *out)
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
            s[base] = s[base] + s[base + stride];
            active >>= 1;
            stride <<= 1;
            base <<= 1;
        }
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = s[0];
}
