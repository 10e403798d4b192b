//--blockDim=32 --gridDim=1
//expect: race

// The floats start 31 * sizeof(float4) bytes in: thread t's f[t] (t < 4) overlaps
// thread 31's float4 v[31].
__global__ void sizeofFloat4PartitionRace(float *out)
{
    extern __shared__ char smem[];
    unsigned t = threadIdx.x;
    float4 *v = (float4 *)smem;
    float *f = (float *)(smem + 31 * sizeof(float4));
    v[t] = make_float4(1.0f, 2.0f, 3.0f, 4.0f);   //~ race(smem)
    f[t] = 5.0f;                                   //~ race(smem)
    out[t] = f[t];                                 //~ race(smem)
}
