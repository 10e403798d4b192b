//--blockDim=32 --gridDim=1
//expect: verified

// A dynamic shared buffer holds 32 `float4`s and then 32 floats: the floats start
// 32 * sizeof(float4) = 512 bytes in, past the last float4.
__global__ void sizeofFloat4Partition(float *out)
{
    extern __shared__ char smem[];
    unsigned t = threadIdx.x;
    float4 *v = (float4 *)smem;
    float *f = (float *)(smem + 32 * sizeof(float4));
    v[t] = make_float4(1.0f, 2.0f, 3.0f, 4.0f);
    f[t] = 5.0f;
    out[t] = f[t];
}
