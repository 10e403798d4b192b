//--blockDim=64 --gridDim=1
//expect: verified

// A `const` reference is only read: reading the neighbour's cell after the barrier is
// fine.
__device__ float weigh(const float &x);

__global__ void weights(const float *in, float *out)
{
    __shared__ float v[64];
    unsigned t = threadIdx.x;
    v[t] = in[t];
    __syncthreads();
    out[t] = weigh(v[(t + 1) % 64]);
}
