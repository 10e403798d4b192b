//--blockDim=64 --gridDim=4
//expect: race

#include <curand_kernel.h>

// Every thread draws from the first generator: curand_uniform reads and advances the
// state it is given, so the draws race (within a block and across blocks).
__global__ void curandSharedState(curandState *states, float *out)
{
    float x = curand_uniform(&states[0]); //~ race(states)
    out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}
