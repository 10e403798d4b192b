//fail
//--blockDim=256 --gridDim=2
//expect: race
//note: the high part is not doubled, so i0 is t itself and i1 = t + h is thread t + h's i0.

#define POINTS 512

// Radix-2 Walsh-Hadamard butterflies on 512 points with explicit masks: the pair of
// thread t at stride h is (2·(t & ~(h-1)) + (t & (h-1)), that + h).
__global__ void walshUndoubled(float *v)
{
    __shared__ float w[POINTS];
    unsigned int t = threadIdx.x;
    w[t] = v[blockIdx.x * POINTS + t];
    w[t + POINTS / 2] = v[blockIdx.x * POINTS + t + POINTS / 2];
    for (unsigned int h = POINTS / 2; h >= 1; h >>= 1) {
        __syncthreads();
        unsigned int high = t & ~(h - 1);
        unsigned int low = t & (h - 1);
        unsigned int i0 = high + low;
        unsigned int i1 = i0 + h;
        float p = w[i0]; //~ race(w)
        float q = w[i1]; //~ race(w)
        w[i0] = p + q; //~ race(w)
        w[i1] = p - q; //~ race(w)
    }
    __syncthreads();
    v[blockIdx.x * POINTS + t] = w[t];
    v[blockIdx.x * POINTS + t + POINTS / 2] = w[t + POINTS / 2];
}
