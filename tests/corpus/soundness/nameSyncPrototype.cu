//--blockDim=64 --gridDim=1
//expect: race

// Declared here, defined in another file: an unknown function, never a barrier. It may
// write any element of `stage`.
__device__ void sync(float *stage);

__global__ void twoPhase(const float *in, float *out)
{
    __shared__ float stage[64];
    stage[threadIdx.x] = in[threadIdx.x]; //~ race(stage)
    sync(stage); //~ race(stage)
    out[threadIdx.x] = stage[63 - threadIdx.x]; //~ race(stage)
}
