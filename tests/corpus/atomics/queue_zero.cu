//--blockDim=64 --gridDim=4
//expect: race
// Adding 0 hands every thread the same slot.
__device__ unsigned int count;

__global__ void queue(float *out)
{
    unsigned int i = atomicAdd(&count, 0);
    out[i] = threadIdx.x; //~ race(out)
}
