//pass
//--blockDim=256 --gridDim=2
//expect: verified

#define POINTS 512

// Radix-2 Walsh-Hadamard butterflies on 512 points with explicit masks: the pair of
// thread t at stride h is (2·(t & ~(h-1)) + (t & (h-1)), that + h).
__global__ void walsh(float *v)
{
    __shared__ float w[POINTS];
    unsigned int t = threadIdx.x;
    w[t] = v[blockIdx.x * POINTS + t];
    w[t + POINTS / 2] = v[blockIdx.x * POINTS + t + POINTS / 2];
    for (unsigned int h = POINTS / 2; h >= 1; h >>= 1) {
        __syncthreads();
        unsigned int high = t & ~(h - 1);
        unsigned int low = t & (h - 1);
        unsigned int i0 = 2 * high + low;
        unsigned int i1 = i0 + h;
        float p = w[i0];
        float q = w[i1];
        w[i0] = p + q;
        w[i1] = p - q;
    }
    __syncthreads();
    v[blockIdx.x * POINTS + t] = w[t];
    v[blockIdx.x * POINTS + t + POINTS / 2] = w[t + POINTS / 2];
}
