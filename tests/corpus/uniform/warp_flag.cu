//pass
//--blockDim=256 --gridDim=16 --warp-sync=32
//expect: verified

// A shared "anything to do?" flag set by thread 0 guards a reduction whose tail is
// warp-synchronous; the flag is one value for the block, so the barriers under it
// are uniform.

__global__ void flaggedReduce(const int *in, const int *enabled, int *out)
{
    __shared__ int active;
    __shared__ volatile int sum[256];
    unsigned int tid = threadIdx.x;

    if (tid == 0)
        active = enabled[blockIdx.x] != 0;
    sum[tid] = in[blockIdx.x * 256 + tid];
    __syncthreads();
    if (active) {
        for (unsigned int s = 128; s > 32; s >>= 1) {
            if (tid < s)
                sum[tid] += sum[tid + s];
            __syncthreads();
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
