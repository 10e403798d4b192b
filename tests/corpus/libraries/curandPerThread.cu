//--blockDim=64 --gridDim=4
//expect: verified

#include <curand_kernel.h>

// The race-free twin: one generator per thread, copied to a local, advanced there and
// stored back.
__global__ void curandPerThread(curandState *states, float *out)
{
    int id = blockIdx.x * blockDim.x + threadIdx.x;
    curandState local = states[id];
    float x = curand_uniform(&local);
    float y = curand_normal(&states[id]);
    out[id] = x + y;
    states[id] = local;
}
