//--blockDim=64 --gridDim=1
//expect: race

// `tex2Dsmooth` is this file's function, not a texture fetch: it writes shared memory.
__device__ float tex2Dsmooth(float *row, int i)
{
    row[i + 1] = 0.5f * row[i]; //~ race(row)
    return row[i]; //~ race(row)
}

__global__ void smooth(const float *in, float *out)
{
    __shared__ float row[65];
    row[threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    out[threadIdx.x] = tex2Dsmooth(row, threadIdx.x);
}
