//--blockDim=256 --gridDim=64
// Prefix sums in the style of the SDK's scan samples: a naive double-buffered scan, a
// work-efficient (Blelloch) scan, and the kernel that adds the block sums back.

#include "histogram_common.h"

#define THREADBLOCK_SIZE 256

// Double-buffered Hillis-Steele scan of one block (n elements, one per thread).
__global__ void scan_naive(float *g_odata, float *g_idata, int n)
{
    extern __shared__ float temp[];

    int thid = threadIdx.x;
    int pout = 0;
    int pin = 1;

    // Exclusive scan: shift right by one and set the first element to 0.
    temp[pout * n + thid] = (thid > 0) ? g_idata[thid - 1] : 0;
    __syncthreads();

    for (int offset = 1; offset < n; offset *= 2)
    {
        pout = 1 - pout;
        pin = 1 - pout;
        __syncthreads();

        temp[pout * n + thid] = temp[pin * n + thid];

        if (thid >= offset)
            temp[pout * n + thid] += temp[pin * n + thid - offset];
    }

    __syncthreads();
    g_odata[thid] = temp[pout * n + thid];
}

// Work-efficient scan: up-sweep, clear the last element, down-sweep.
__global__ void scan_workefficient(float *g_odata, float *g_idata, int n)
{
    extern __shared__ float temp[];

    int thid = threadIdx.x;
    int offset = 1;

    temp[2 * thid] = g_idata[2 * thid];
    temp[2 * thid + 1] = g_idata[2 * thid + 1];

    for (int d = n >> 1; d > 0; d >>= 1)
    {
        __syncthreads();

        if (thid < d)
        {
            int ai = offset * (2 * thid + 1) - 1;
            int bi = offset * (2 * thid + 2) - 1;
            temp[bi] += temp[ai];
        }
        offset *= 2;
    }

    if (thid == 0) { temp[n - 1] = 0; }

    for (int d = 1; d < n; d *= 2)
    {
        offset >>= 1;
        __syncthreads();

        if (thid < d)
        {
            int ai = offset * (2 * thid + 1) - 1;
            int bi = offset * (2 * thid + 2) - 1;
            float t = temp[ai];
            temp[ai] = temp[bi];
            temp[bi] += t;
        }
    }

    __syncthreads();

    g_odata[2 * thid] = temp[2 * thid];
    g_odata[2 * thid + 1] = temp[2 * thid + 1];
}

// Adds each block's offset to the four elements every thread owns.
__global__ void uniformUpdate(uint4 *d_Data, uint *d_Buffer)
{
    __shared__ uint buf;
    uint pos = blockIdx.x * blockDim.x + threadIdx.x;

    if (threadIdx.x == 0)
    {
        buf = d_Buffer[blockIdx.x];
    }

    __syncthreads();

    uint4 data4 = d_Data[pos];
    data4.x += buf;
    data4.y += buf;
    data4.z += buf;
    data4.w += buf;
    d_Data[pos] = data4;
}

// Inclusive warp scan through shared memory, then a block scan of the warp totals.
inline __device__ uint scan1Inclusive(uint idata, volatile uint *s_Data, uint size)
{
    uint pos = 2 * threadIdx.x - (threadIdx.x & (size - 1));
    s_Data[pos] = 0;
    pos += size;
    s_Data[pos] = idata;

    for (uint offset = 1; offset < size; offset <<= 1)
    {
        __syncthreads();
        uint t = s_Data[pos] + s_Data[pos - offset];
        __syncthreads();
        s_Data[pos] = t;
    }

    return s_Data[pos];
}

inline __device__ uint scan1Exclusive(uint idata, volatile uint *s_Data, uint size)
{
    return scan1Inclusive(idata, s_Data, size) - idata;
}

__global__ void scanExclusiveShared(uint4 *d_Dst, uint4 *d_Src, uint size)
{
    __shared__ uint s_Data[2 * THREADBLOCK_SIZE];

    uint pos = blockIdx.x * blockDim.x + threadIdx.x;

    // Load data
    uint4 idata4 = d_Src[pos];

    // Calculate exclusive scan
    idata4.y += idata4.x;
    idata4.z += idata4.y;
    idata4.w += idata4.z;

    uint oval = scan1Exclusive(idata4.w, s_Data, size / 4);

    idata4.x += oval;
    idata4.y += oval;
    idata4.z += oval;
    idata4.w += oval;

    d_Dst[pos] = idata4;
}
