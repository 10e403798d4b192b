//pass
//--blockDim=128 --gridDim=4
//expect: verified

// A scatter whose slot function is a template argument: `spread` gives every thread a
// slot of its own.
__device__ int spread(int t) { return 2 * t; }

template <int (*slot)(int)>
__global__ void scatter(float *out, const float *in)
{
    __shared__ float tile[256];
    tile[slot(threadIdx.x)] = in[blockIdx.x * 128 + threadIdx.x];
    __syncthreads();
    out[blockIdx.x * 128 + threadIdx.x] = tile[255 - 2 * threadIdx.x];
}

void run(float *out, const float *in)
{
    scatter<spread><<<4, 128>>>(out, in);
}
