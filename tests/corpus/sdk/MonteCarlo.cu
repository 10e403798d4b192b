//pass
//--blockDim=256 --gridDim=64
//expect: verified

#define SUM_N 256

typedef struct {
    float Expected;
    float Confidence;
} __TOptionValue;

template <class T> __device__ void sumReduce(T *sum)
{
    for (int stride = SUM_N / 2; stride > 0; stride >>= 1) {
        __syncthreads();
        for (int pos = threadIdx.x; pos < stride; pos += blockDim.x) {
            sum[pos] += sum[pos + stride];
        }
    }
}

__device__ inline float endCallValue(float S, float X, float r, float MuByT, float VBySqrtT)
{
    float callValue = S * __expf(MuByT + VBySqrtT * r) - X;
    return (callValue > 0) ? callValue : 0;
}

// One option per block; threads sum payoffs over their share of the paths.
__global__ void MonteCarloOneBlockPerOption(float *d_Samples, int pathN, float S, float X,
                                            float MuByT, float VBySqrtT, __TOptionValue *d_CallValue)
{
    __shared__ float s_SumCall[SUM_N];
    __shared__ float s_Sum2Call[SUM_N];

    for (int iSum = threadIdx.x; iSum < SUM_N; iSum += blockDim.x) {
        float sumCall = 0, sumCall2 = 0;
        for (int i = iSum; i < pathN; i += SUM_N) {
            float r = d_Samples[i];
            float callValue = endCallValue(S, X, r, MuByT, VBySqrtT);
            sumCall += callValue;
            sumCall2 += callValue * callValue;
        }
        s_SumCall[iSum] = sumCall;
        s_Sum2Call[iSum] = sumCall2;
    }

    sumReduce<float>(s_SumCall);
    sumReduce<float>(s_Sum2Call);

    if (threadIdx.x == 0) {
        d_CallValue[blockIdx.x].Expected = s_SumCall[0];
        d_CallValue[blockIdx.x].Confidence = s_Sum2Call[0];
    }
}
