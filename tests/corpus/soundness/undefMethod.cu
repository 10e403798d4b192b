//--blockDim=64 --gridDim=1
//expect: race

// `add` is declared in the struct and defined out of line elsewhere: it may write its
// object, here the neighbour's accumulator.
struct Accumulator {
    float total;
    __device__ void add(float x);
};

__global__ void accumulate(const float *in, float *out)
{
    __shared__ Accumulator acc[65];
    unsigned t = threadIdx.x;
    acc[t].total = 0.0f;
    __syncthreads();
    acc[t + 1].add(in[t]); //~ race(acc)
    out[t] = acc[t].total; //~ race(acc)
}
