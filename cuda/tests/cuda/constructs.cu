//--blockDim=[8,4,2] --gridDim=2 --warp-sync=32
// Odds and ends of the C++ that real kernels use, one kernel per topic.

#include <cuda.h>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#define N 64
#define SQUARE(x) ((x) * (x))

enum Mode { COPY = 0, ADD = 1, MAX_MODE };

typedef unsigned int uint;
using word = unsigned int;

struct Params
{
    int *data;
    int count;
    int stride;
};

struct Accumulator
{
    int total;
    __device__ void add(int v) { total += v; }
    __device__ int get() const { return total; }
};

__device__ int clampIndex(int i, int n)
{
    if (i < 0)
        return 0;
    if (i >= n)
        return n - 1;
    return i;
}

__device__ void swapShared(int &a, int &b)
{
    int t = a;
    a = b;
    b = t;
}

__global__ void structs_and_methods(Params p, int *out)
{
    __requires(p.count > 0);
    __shared__ int cache[N];
    Accumulator acc;
    acc.total = 0;
    for (int i = threadIdx.x; i < p.count; i += p.stride)
        acc.add(p.data[i]);
    cache[threadIdx.x] = acc.get();
    __syncthreads();
    if (threadIdx.x == 0)
        swapShared(cache[0], cache[1]);
    __syncthreads();
    out[clampIndex(threadIdx.x - 1, N)] = cache[threadIdx.x];
}

__global__ void groups_and_atomics(unsigned int *counter, int *bins, float *fsum)
{
    cg::thread_block cta = cg::this_thread_block();
    __shared__ unsigned int s_count;
    if (cta.thread_rank() == 0)
        s_count = 0;
    cg::sync(cta);
    unsigned int mine = atomicAdd(&s_count, 1);
    atomicMax(&bins[mine % 16], (int)threadIdx.x);
    atomicAdd(fsum, 1.5f);
    unsigned int old = atomicCAS(counter, 0u, mine);
    atomicExch(&bins[16], old);
    int all = __syncthreads_count(mine > 3);
    __syncwarp();
    __threadfence();
    if (threadIdx.x == 0)
        bins[17] = all;
}

__global__ void control_flow(int *A, int n, int mode)
{
    __assume(n < 1000);
    __shared__ int s[N][2][2];
    int t = threadIdx.x + threadIdx.y * blockDim.x;
    int i = 0;
    // A loop whose condition reads memory.
    while (A[i] != 0 && i < n)
        i++;
    // continue must still run the update.
    for (int k = 0; A[k] > 0; k++) {
        if (k % 2)
            continue;
        s[t % N][k % 2][0] = k;
    }
    do {
        i--;
        if (i == 3)
            continue;
    } while (i > 0);
    switch (mode) {
    case COPY:
        s[t % N][0][1] = 1;
    case ADD:
        s[t % N][1][1] += 2;
        break;
    default:
        break;
    }
    if (mode == MAX_MODE) return;
    __invariant(i >= 0);
    A[t] = SQUARE(i) + min(t, n) + max(i, 3);
}

__device__ int firstPositive(const int *v, int n)
{
    for (int i = 0; i < n; i++) {
        if (v[i] > 0)
            return i;
    }
    return -1;
}

__global__ void early_returns(int *v, int *out, int n)
{
    __shared__ int pos[N];
    int f = firstPositive(v + blockIdx.x * n, n);
    pos[threadIdx.x] = f;
    __syncthreads();
    if (threadIdx.x == 0) {
        int *p = &pos[0];
        word w = *(p + 1);
        out[blockIdx.x] = w;
    }
}

#if defined(__CUDACC__) && N > 32
__global__ void conditional_kernel(float4 *dst, const float2 *src)
{
    __shared__ float4 tile[N];
    float2 v = src[threadIdx.x];
    tile[threadIdx.x] = make_float4(v.x, v.y, 0.0f, 1.0f);
    __syncthreads();
    dst[threadIdx.x] = tile[N - 1 - threadIdx.x];
}
#else
__global__ void conditional_kernel(float4 *dst, const float2 *src) { goto nowhere; }
#endif
