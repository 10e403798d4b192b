//pass
//--blockDim=128 --gridDim=64
//expect: verified
//note: the last block (chosen with atomicInc) reads the partial sums that the
//      other blocks wrote before their __threadfence(): the last-block ticket orders
//      them (docs/semantics.md, "Last-block tickets"; twins in tests/corpus/ticket/).

__device__ unsigned int retirementCount = 0;

template <unsigned int blockSize>
__device__ void reduceBlock(volatile float *sdata, float mySum, const unsigned int tid)
{
    sdata[tid] = mySum;
    __syncthreads();
    for (unsigned int s = blockSize / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] = mySum = mySum + sdata[tid + s];
        __syncthreads();
    }
}

template <unsigned int blockSize>
__global__ void reduceSinglePass(const float *g_idata, float *g_odata, unsigned int n)
{
    __shared__ float sdata[blockSize];
    __shared__ bool amLast;
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockSize + threadIdx.x;
    float mySum = (i < n) ? g_idata[i] : 0.0f;
    reduceBlock<blockSize>(sdata, mySum, tid);

    if (tid == 0) g_odata[blockIdx.x] = sdata[0];

    if (gridDim.x > 1) {
        if (tid == 0) {
            __threadfence();
            unsigned int ticket = atomicInc(&retirementCount, gridDim.x);
            amLast = (ticket == gridDim.x - 1);
        }
        __syncthreads();
        if (amLast) {
            int j = tid;
            float s = 0.0f;
            while (j < gridDim.x) {
                s += g_odata[j];
                j += blockSize;
            }
            reduceBlock<blockSize>(sdata, s, tid);
            if (tid == 0) {
                g_odata[0] = sdata[0];
                retirementCount = 0;
            }
        }
    }
}

template __global__ void reduceSinglePass<128>(const float *, float *, unsigned int);
