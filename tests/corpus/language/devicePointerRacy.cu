//fail
//--blockDim=64 --gridDim=2
//expect: race

// A `__device__` pointer set by the host; every block writes the same 64 cells.
__device__ int *d_flags;

__global__ void markFlags(const int *keys)
{
    int t = threadIdx.x;
    d_flags[t] = keys[blockIdx.x * blockDim.x + t]; //~ race(d_flags)
}
