//--blockDim=64 --gridDim=4
//expect: race
//expect-unfixable
// Global bins: the barrier orders the threads of a block, but another block may still
// be updating the bin a thread reads (not fixable by barriers).
__global__ void bins(const unsigned int *data, unsigned int *h, unsigned int *out)
{
    unsigned int gid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int b = data[gid] % 64;
    atomicAdd(&h[b], 1); //~ race(h)
    __syncthreads();
    out[gid] = h[b]; //~ race(h)
}
