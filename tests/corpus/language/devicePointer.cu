//pass
//--blockDim=64 --gridDim=2
//expect: verified

// Pointers in `__device__` and `__constant__` memory that the host sets with
// cudaMemcpyToSymbol: each names global memory of its own.
__device__ float *d_accum;
__constant__ int *c_lookup;

__global__ void accumulate(const float *x)
{
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    d_accum[g] = d_accum[g] + x[c_lookup[g]];
}
