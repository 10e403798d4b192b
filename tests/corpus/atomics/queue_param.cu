//--blockDim=64 --gridDim=4
//expect: verified
// A work queue on a counter passed as `count[0]`.
__global__ void queue(unsigned int *count, float *out, const float *in)
{
    unsigned int i = atomicAdd(&count[0], 1);
    out[i] = in[i] * 2.0f;
}
