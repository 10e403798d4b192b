//pass
//--blockDim=256 --gridDim=64
//expect: verified

#define NUM_BANKS 16
#define LOG_NUM_BANKS 4
#define CONFLICT_FREE_OFFSET(index) ((index) >> LOG_NUM_BANKS)

// Adds the scanned block sums back to every element of a block.
__global__ void uniformAdd(float *g_data, float *uniforms, int n, int blockOffset, int baseIndex)
{
    __shared__ float uni;
    if (threadIdx.x == 0)
        uni = uniforms[blockIdx.x + blockOffset];

    unsigned int address = __mul24(blockIdx.x, (blockDim.x << 1)) + baseIndex + threadIdx.x;

    __syncthreads();

    g_data[address] += uni;
    g_data[address + blockDim.x] += (threadIdx.x + blockDim.x < n) * uni;
}

template <bool storeSum>
__device__ void loadSharedChunkFromMem(float *s_data, const float *g_idata, int n, int baseIndex,
                                       int &ai, int &bi, int &mem_ai, int &mem_bi, int &bankOffsetA, int &bankOffsetB)
{
    int thid = threadIdx.x;
    mem_ai = baseIndex + threadIdx.x;
    mem_bi = mem_ai + blockDim.x;
    ai = thid;
    bi = thid + blockDim.x;
    bankOffsetA = CONFLICT_FREE_OFFSET(ai);
    bankOffsetB = CONFLICT_FREE_OFFSET(bi);
    s_data[ai + bankOffsetA] = g_idata[mem_ai];
    s_data[bi + bankOffsetB] = g_idata[mem_bi];
}

__device__ unsigned int buildSum(float *s_data)
{
    unsigned int thid = threadIdx.x;
    unsigned int stride = 1;
    for (int d = blockDim.x; d > 0; d >>= 1) {
        __syncthreads();
        if (thid < d) {
            int i = __mul24(__mul24(2, stride), thid);
            int ai = i + stride - 1;
            int bi = ai + stride;
            ai += CONFLICT_FREE_OFFSET(ai);
            bi += CONFLICT_FREE_OFFSET(bi);
            s_data[bi] += s_data[ai];
        }
        stride *= 2;
    }
    return stride;
}

__global__ void prescanFirstPhase(float *g_odata, const float *g_idata, int n)
{
    __requires(n == 512);
    __shared__ float s_data[2 * 256 + 64];
    int ai, bi, mem_ai, mem_bi, bankOffsetA, bankOffsetB;
    loadSharedChunkFromMem<true>(s_data, g_idata, n, 0, ai, bi, mem_ai, mem_bi, bankOffsetA, bankOffsetB);
    buildSum(s_data);
    __syncthreads();
    if (blockIdx.x == 0) {
        g_odata[mem_ai] = s_data[ai + bankOffsetA];
        g_odata[mem_bi] = s_data[bi + bankOffsetB];
    }
}
