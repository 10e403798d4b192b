//pass
//--blockDim=256 --gridDim=64
//expect: verified

#define NUM_STEPS 2048
#define CACHE_SIZE 256
#define CACHE_DELTA 32
#define CACHE_STEP (CACHE_SIZE - CACHE_DELTA)

typedef struct {
    float S;
    float X;
    float vDt;
    float puByDf;
    float pdByDf;
} __TOptionData;

__constant__ __TOptionData d_OptionData[64];
__device__ float d_CallValue[64];
__device__ float d_CallBuffer[64 * (NUM_STEPS + 16)];

__device__ inline float expiryCallValue(float S, float X, float vDt, int i)
{
    float d = S * __expf(vDt * (2.0f * i - NUM_STEPS)) - X;
    return (d > 0) ? d : 0;
}

// Backward induction on a binomial tree: the tree level lives in global memory,
// a sliding window of it is cached in two shared buffers.
__global__ void binomialOptionsKernel()
{
    __shared__ float callA[CACHE_SIZE + 1];
    __shared__ float callB[CACHE_SIZE + 1];
    float *const d_Call = &d_CallBuffer[blockIdx.x * (NUM_STEPS + 16)];

    const int tid = threadIdx.x;
    const float S = d_OptionData[blockIdx.x].S;
    const float X = d_OptionData[blockIdx.x].X;
    const float vDt = d_OptionData[blockIdx.x].vDt;
    const float puByDf = d_OptionData[blockIdx.x].puByDf;
    const float pdByDf = d_OptionData[blockIdx.x].pdByDf;

    for (int i = tid; i <= NUM_STEPS; i += CACHE_SIZE)
        d_Call[i] = expiryCallValue(S, X, vDt, i);

    for (int i = NUM_STEPS; i > 0; i -= CACHE_DELTA)
        for (int c_base = 0; c_base < i; c_base += CACHE_STEP) {
            int c_start = min(CACHE_SIZE - 1, i - c_base);
            int c_end = c_start - CACHE_DELTA;

            __syncthreads();
            if (tid <= c_start) callA[tid] = d_Call[c_base + tid];

            for (int k = c_start - 1; k >= c_end;) {
                __syncthreads();
                callB[tid] = puByDf * callA[tid + 1] + pdByDf * callA[tid];
                k--;
                __syncthreads();
                callA[tid] = puByDf * callB[tid + 1] + pdByDf * callB[tid];
                k--;
            }

            __syncthreads();
            if (tid <= c_end) d_Call[c_base + tid] = callA[tid];
        }

    if (threadIdx.x == 0) d_CallValue[blockIdx.x] = callA[0];
}
