//--blockDim=8 --gridDim=2
// The SDK's reduce2 (sequential addressing) with its barriers missing. One barrier at
// the top of each round of the tree orders the load and every round before the next
// (the last round is thread 0 alone, which then reads its own result).

template <class T>
__global__ void reduce2(T *g_idata, T *g_odata, unsigned int n)
{
    extern __shared__ T sdata[];

    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;

    sdata[tid] = (i < n) ? g_idata[i] : 0;

    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1)
    {
        if (tid < s)
        {
            sdata[tid] += sdata[tid + s];
        }
    }

    if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

template __global__ void reduce2<int>(int *g_idata, int *g_odata, unsigned int n);
