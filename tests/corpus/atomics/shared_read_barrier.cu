//--blockDim=64 --gridDim=4
//expect: verified
// An atomic update and a plain read of the same shared bin, with a barrier between: clean.
__global__ void bins(const unsigned int *data, unsigned int *out)
{
    __shared__ unsigned int h[64];
    unsigned int gid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int b = data[gid] % 64;
    h[threadIdx.x] = 0;
    __syncthreads();
    atomicAdd(&h[b], 1);
    __syncthreads();
    out[gid] = h[b];
}
