//--blockDim=64 --gridDim=4
//expect: verified
// Seed 000, Fig. 3: threads take work items from a shared counter until none is left.
__device__ unsigned int c;

__device__ float compute(const float *in, unsigned int i) { return in[i] * in[i]; }

__global__ void queue(const float *in, float *out, unsigned int max)
{
    unsigned int i = atomicAdd(&c, 1);
    while (i < max) {
        out[i] = compute(in, i);
        i = atomicAdd(&c, 1);
    }
}
