//--blockDim=256 --gridDim=256
// Final step of the SDK histogram sample (256 bins): block b adds up bin b of all the
// partial histograms the per-block pass produced. Each thread sums a strided subset of
// them, then the block halves a shared array of those sums down to element 0.

#define BINS 256
#define THREADS 256

__global__ void mergeHistogram256Kernel(unsigned int *histogram, unsigned int *partials, unsigned int partialCount)
{
    __requires(partialCount == 240);

    unsigned int s = 0;
    for (unsigned int p = threadIdx.x; p < partialCount; p += THREADS)
        s += partials[blockIdx.x + p * BINS];

    __shared__ unsigned int sums[THREADS];
    sums[threadIdx.x] = s;

    for (unsigned int half = THREADS / 2; half > 0; half >>= 1) {
        __syncthreads();
        if (threadIdx.x < half)
            sums[threadIdx.x] += sums[threadIdx.x + half];
    }

    if (threadIdx.x == 0)
        histogram[blockIdx.x] = sums[0];
}
