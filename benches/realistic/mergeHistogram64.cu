//--blockDim=256 --gridDim=64
// Final step of the SDK histogram sample (64 bins): block b adds up bin b of all the
// partial histograms. Each thread sums a strided subset, then the block halves a
// shared array of those sums, a barrier at the top of every round.

#define BINS 64
#define THREADS 256

__global__ void mergeHistogram64Kernel(unsigned int *histogram, unsigned int *partials, unsigned int partialCount)
{
    __requires(partialCount == 4096);

    __shared__ unsigned int sums[THREADS];

    unsigned int s = 0;
    for (unsigned int p = threadIdx.x; p < partialCount; p += THREADS)
        s += partials[blockIdx.x + p * BINS];
    sums[threadIdx.x] = s;

    for (unsigned int half = THREADS / 2; half > 0; half >>= 1) {
        __syncthreads();
        if (threadIdx.x < half)
            sums[threadIdx.x] += sums[threadIdx.x + half];
    }

    if (threadIdx.x == 0)
        histogram[blockIdx.x] = sums[0];
}
