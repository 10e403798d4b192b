//--blockDim=64 --gridDim=1
//expect: race

// Read through a `const` reference before the neighbour's store is published.
__device__ float weigh(const float &x);

__global__ void weights(const float *in, float *out)
{
    __shared__ float v[64];
    unsigned t = threadIdx.x;
    v[t] = in[t]; //~ race(v)
    out[t] = weigh(v[(t + 1) % 64]); //~ race(v)
}
