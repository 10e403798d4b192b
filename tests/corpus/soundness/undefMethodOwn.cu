//--blockDim=64 --gridDim=1
//expect: verified

// Each thread updates its own accumulator; a `const` method reads the neighbour's after
// the barrier.
struct Accumulator {
    float total;
    __device__ void add(float x);
    __device__ float value() const;
};

__global__ void accumulate(const float *in, float *out)
{
    __shared__ Accumulator acc[64];
    unsigned t = threadIdx.x;
    acc[t].total = 0.0f;
    acc[t].add(in[t]);
    __syncthreads();
    out[t] = acc[(t + 1) % 64].value();
}
