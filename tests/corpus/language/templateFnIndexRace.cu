//pass
//--blockDim=128 --gridDim=4
//expect: race

// templateFnIndex instantiated with `pairUp`: two threads share each slot and store
// different values there.
__device__ int pairUp(int t) { return t / 2; }

template <int (*slot)(int)>
__global__ void scatter(float *out, const float *in)
{
    __shared__ float tile[256];
    tile[slot(threadIdx.x)] = in[blockIdx.x * 128 + threadIdx.x]; //~ race(tile)
    __syncthreads();
    out[blockIdx.x * 128 + threadIdx.x] = tile[255 - 2 * threadIdx.x];
}

void run(float *out, const float *in)
{
    scatter<pairUp><<<4, 128>>>(out, in);
}
