//pass
//--blockDim=192 --gridDim=240
//expect: verified

#define LOG2_WARP_SIZE 5U
#define WARP_SIZE (1U << LOG2_WARP_SIZE)
#define HISTOGRAM256_BIN_COUNT 256
#define WARP_COUNT 6
#define HISTOGRAM256_THREADBLOCK_SIZE (WARP_COUNT * WARP_SIZE)
#define HISTOGRAM256_THREADBLOCK_MEMORY (WARP_COUNT * HISTOGRAM256_BIN_COUNT)

// One sub-histogram per warp, updated with shared-memory atomics.
inline __device__ void addByte(unsigned int *s_WarpHist, unsigned int data)
{
    atomicAdd(s_WarpHist + data, 1);
}

inline __device__ void addWord(unsigned int *s_WarpHist, unsigned int data)
{
    addByte(s_WarpHist, (data >> 0) & 0xFFU);
    addByte(s_WarpHist, (data >> 8) & 0xFFU);
    addByte(s_WarpHist, (data >> 16) & 0xFFU);
    addByte(s_WarpHist, (data >> 24) & 0xFFU);
}

__global__ void histogram256Kernel(unsigned int *d_PartialHistograms, unsigned int *d_Data, unsigned int dataCount)
{
    __shared__ unsigned int s_Hist[HISTOGRAM256_THREADBLOCK_MEMORY];
    unsigned int *s_WarpHist = s_Hist + (threadIdx.x >> LOG2_WARP_SIZE) * HISTOGRAM256_BIN_COUNT;

#pragma unroll
    for (unsigned int i = 0; i < (HISTOGRAM256_THREADBLOCK_MEMORY / HISTOGRAM256_THREADBLOCK_SIZE); i++)
        s_Hist[threadIdx.x + i * HISTOGRAM256_THREADBLOCK_SIZE] = 0;

    __syncthreads();
    for (unsigned int pos = blockIdx.x * blockDim.x + threadIdx.x; pos < dataCount; pos += blockDim.x * gridDim.x) {
        unsigned int data = d_Data[pos];
        addWord(s_WarpHist, data);
    }

    __syncthreads();
    for (unsigned int bin = threadIdx.x; bin < HISTOGRAM256_BIN_COUNT; bin += HISTOGRAM256_THREADBLOCK_SIZE) {
        unsigned int sum = 0;
        for (unsigned int i = 0; i < WARP_COUNT; i++)
            sum += s_Hist[bin + i * HISTOGRAM256_BIN_COUNT];
        d_PartialHistograms[blockIdx.x * HISTOGRAM256_BIN_COUNT + bin] = sum;
    }
}
