//--blockDim=64 --gridDim=1
//expect: verified

// Twin of deviceCallNestedRace.cu: `blend` reads the left neighbour, waits for every
// thread at a barrier, then writes its own cell.
__device__ float blend(float *row, int t)
{
    float left = t > 0 ? row[t - 1] : 0.0f;
    float own = row[t];
    __syncthreads();
    row[t] = 0.5f * (left + own);
    return row[t];
}

__device__ float smooth(float *row, int t)
{
    return blend(row, t);
}

__global__ void smoothRow(const float *in, float *out)
{
    __shared__ float row[64];
    row[threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    out[threadIdx.x] = smooth(row, threadIdx.x);
}
