//--blockDim=256 --gridDim=4
//expect: verified
// Every thread of a warp marks its warp's slot with the same constant; after the
// barrier thread 0 counts the marks. The 32 writes of one slot store equal values.
__global__ void markWarps(float *out)
{
    __shared__ float seen[8];
    seen[threadIdx.x / 32] = 1.0f;
    __syncthreads();
    if (threadIdx.x == 0) {
        float total = 0.0f;
        for (int w = 0; w < 8; ++w)
            total += seen[w];
        out[blockIdx.x] = total;
    }
}
