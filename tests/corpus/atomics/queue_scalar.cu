//--blockDim=64 --gridDim=4
//expect: verified
// A work queue on a global scalar counter: every thread takes a distinct slot.
__device__ unsigned int count;

__global__ void queue(float *out, const float *in)
{
    unsigned int i = atomicAdd(&count, 1);
    out[i] = in[i] * 2.0f;
}
