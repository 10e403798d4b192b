//pass
//expect: verified

// The pipeline primitives: each thread copies its own 16 bytes, commits the batch, waits
// for every batch but the newest one (an empty batch committed after it), and a barrier
// then orders the copies before the reads of other threads' elements.
#include <cuda_pipeline.h>

__global__ void gatherQuads(const float4 *in, float4 *out)
{
    __shared__ float4 quads[64];
    unsigned t = threadIdx.x;
    __pipeline_memcpy_async(&quads[t], &in[blockIdx.x * 64 + t], sizeof(float4));
    __pipeline_commit();
    __pipeline_commit();
    __pipeline_wait_prior(1);
    __syncthreads();
    out[blockIdx.x * 64 + t] = quads[63 - t];
}

int main()
{
    float4 *in, *out;
    gatherQuads<<<32, 64>>>(in, out);
    return 0;
}
