//--blockDim=32 --gridDim=1
//expect: race

#include <curand_kernel.h>

// curand_init writes the state: initialising one generator from every thread races,
// one generator per thread (the second call) does not.
__global__ void curandInitShared(curandState *states, unsigned long long seed)
{
    curand_init(seed, threadIdx.x, 0, &states[0]); //~ race(states)
    curand_init(seed, threadIdx.x, 0, &states[threadIdx.x + 1]);
}
