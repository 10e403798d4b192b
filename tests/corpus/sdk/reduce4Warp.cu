//pass
//--blockDim=128 --gridDim=64 --warp-sync=32
//expect: verified
//note: the unrolled last warp relies on warp-synchronous execution: verified under the
//      header's --warp-sync=32 (lock step inside warps of 32); without lock step, the
//      accesses of the final steps (lines 24 and 29) would race (docs/semantics.md, Warps and atomics).

template <class T, unsigned int blockSize>
__global__ void reduce4(T *g_idata, T *g_odata, unsigned int n)
{
    __shared__ T sdata[blockSize];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (blockSize * 2) + threadIdx.x;
    T mySum = (i < n) ? g_idata[i] : 0;
    if (i + blockSize < n) mySum += g_idata[i + blockSize];
    sdata[tid] = mySum;
    __syncthreads();

    for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1) {
        if (tid < s) sdata[tid] = mySum = mySum + sdata[tid + s];
        __syncthreads();
    }
    if (tid < 32) {
        volatile T *smem = sdata;
        if (blockSize >= 64) smem[tid] = mySum = mySum + smem[tid + 32];
        if (blockSize >= 32) smem[tid] = mySum = mySum + smem[tid + 16];
        if (blockSize >= 16) smem[tid] = mySum = mySum + smem[tid + 8];
        if (blockSize >= 8) smem[tid] = mySum = mySum + smem[tid + 4];
        if (blockSize >= 4) smem[tid] = mySum = mySum + smem[tid + 2];
        if (blockSize >= 2) smem[tid] = mySum = mySum + smem[tid + 1];
    }
    if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

template __global__ void reduce4<int, 128>(int *, int *, unsigned int);
