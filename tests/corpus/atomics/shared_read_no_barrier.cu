//--blockDim=64 --gridDim=4
//expect: race
// An atomic update and a plain read of the same shared bin, no barrier between.
__global__ void bins(const unsigned int *data, unsigned int *out)
{
    __shared__ unsigned int h[64];
    unsigned int gid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int b = data[gid] % 64;
    h[threadIdx.x] = 0;
    __syncthreads();
    atomicAdd(&h[b], 1); //~ race(h)
    out[gid] = h[b]; //~ race(h)
}
