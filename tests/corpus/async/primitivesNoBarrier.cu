//pass
//expect: race

// The twin of primitives.cu without the barrier: a thread's wait completes only its own
// copy, and the element it reads is another thread's, which may still be arriving.
#include <cuda_pipeline.h>

__global__ void gatherQuadsUnordered(const float4 *in, float4 *out)
{
    __shared__ float4 quads[64];
    unsigned t = threadIdx.x;
    __pipeline_memcpy_async(&quads[t], &in[blockIdx.x * 64 + t], sizeof(float4)); //~ race(quads)
    __pipeline_commit();
    __pipeline_wait_prior(0);
    out[blockIdx.x * 64 + t] = quads[63 - t];                                    //~ race(quads)
}

int main()
{
    float4 *in, *out;
    gatherQuadsUnordered<<<32, 64>>>(in, out);
    return 0;
}
