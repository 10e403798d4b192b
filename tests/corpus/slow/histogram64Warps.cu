//--blockDim=256 --gridDim=32
//expect: verified

// A 64-bin histogram with one sub-histogram per warp (8 warps of 32 threads), so that
// atomics of different warps never contend: clear all sub-histograms, count bytes with
// shared atomics into the own warp's bins, then threads 0..63 sum bin t over the warps
// and add it to the global histogram.

#define BINS 64
#define WARPS 8

__global__ void histogram64Warps(const unsigned char *data, unsigned int *hist, int n)
{
    __shared__ unsigned int sub[WARPS * BINS];
    const unsigned int t = threadIdx.x;
    const unsigned int warp = t >> 5;
    sub[t] = 0;
    sub[t + 256] = 0;
    __syncthreads();
    for (int i = blockIdx.x * 256 + t; i < n; i += 256 * gridDim.x) {
        unsigned int v = data[i];
        atomicAdd(&sub[warp * BINS + (v & 63)], 1u);
        atomicAdd(&sub[warp * BINS + ((v >> 2) & 63)], 1u);
    }
    __syncthreads();
    if (t < BINS) {
        unsigned int sum = sub[0 * BINS + t];
        sum += sub[1 * BINS + t];
        sum += sub[2 * BINS + t];
        sum += sub[3 * BINS + t];
        sum += sub[4 * BINS + t];
        sum += sub[5 * BINS + t];
        sum += sub[6 * BINS + t];
        sum += sub[7 * BINS + t];
        atomicAdd(&hist[t], sum);
    }
}
