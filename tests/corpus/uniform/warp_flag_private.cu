//fail
//--blockDim=256 --gridDim=16 --warp-sync=32
//expect: divergence

// The "anything to do?" flag is thread 0's local variable: the other threads skip
// the reduction and its barriers.

__global__ void flaggedReducePrivate(const int *in, const int *enabled, int *out)
{
    __shared__ volatile int sum[256];
    unsigned int tid = threadIdx.x;
    int active = 0;

    if (tid == 0)
        active = enabled[blockIdx.x] != 0;
    sum[tid] = in[blockIdx.x * 256 + tid];
    __syncthreads();
    if (active) {
        for (unsigned int s = 128; s > 32; s >>= 1) {
            if (tid < s)
                sum[tid] += sum[tid + s];
            __syncthreads(); //~ divergence
        }
        if (tid < 32) {
            sum[tid] += sum[tid + 32];
            sum[tid] += sum[tid + 16];
            sum[tid] += sum[tid + 8];
            sum[tid] += sum[tid + 4];
            sum[tid] += sum[tid + 2];
            sum[tid] += sum[tid + 1];
        }
        if (tid == 0)
            out[blockIdx.x] = sum[0];
    }
}
