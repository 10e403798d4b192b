//--blockDim=64 --gridDim=1
//expect: race

// A race two calls deep: the kernel calls `smooth`, which calls `blend`, whose read of
// the left neighbour races with the neighbour's write. Each access is reported at its
// line in `blend` with the chain of calls: "in `blend`, called from `smooth` at line
// 17, called at line 25".
__device__ float blend(float *row, int t)
{
    float left = t > 0 ? row[t - 1] : 0.0f; //~ race(row)
    row[t] = 0.5f * (left + row[t]); //~ race(row)
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
