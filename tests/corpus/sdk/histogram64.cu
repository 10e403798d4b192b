//pass
//--blockDim=64 --gridDim=32
//expect: verified

#define HISTOGRAM64_BIN_COUNT 64
#define THREAD_N 64
#define MERGE_THREADS 64

// Per-thread byte-wide sub-histograms in shared memory, indexed so that
// threads never share a byte: s_Hist[bin * THREAD_N + thread].
__device__ inline void addData64(unsigned char *s_Hist, int threadPos, unsigned int data)
{
    s_Hist[threadPos + __umul24(data, THREAD_N)]++;
}

__global__ void histogram64Kernel(unsigned int *d_PartialHistograms, unsigned int *d_Data, unsigned int dataCount)
{
    __requires(dataCount == 8192);
    const unsigned int threadPos = threadIdx.x;
    __shared__ unsigned char s_Hist[THREAD_N * HISTOGRAM64_BIN_COUNT];

#pragma unroll
    for (unsigned int i = 0; i < (HISTOGRAM64_BIN_COUNT / 4); i++)
        ((unsigned int *)s_Hist)[threadIdx.x + i * THREAD_N] = 0;

    __syncthreads();

    for (unsigned int pos = __umul24(blockIdx.x, blockDim.x) + threadIdx.x; pos < dataCount;
         pos += __umul24(blockDim.x, gridDim.x)) {
        unsigned int data4 = d_Data[pos];
        addData64(s_Hist, threadPos, (data4 >> 2) & 0x3FU);
        addData64(s_Hist, threadPos, (data4 >> 10) & 0x3FU);
        addData64(s_Hist, threadPos, (data4 >> 18) & 0x3FU);
        addData64(s_Hist, threadPos, (data4 >> 26) & 0x3FU);
    }

    __syncthreads();

    if (threadIdx.x < HISTOGRAM64_BIN_COUNT) {
        unsigned int sum = 0;
        for (unsigned int i = 0; i < THREAD_N; i++)
            sum += s_Hist[threadIdx.x * THREAD_N + i];
        d_PartialHistograms[blockIdx.x * HISTOGRAM64_BIN_COUNT + threadIdx.x] = sum;
    }
}
