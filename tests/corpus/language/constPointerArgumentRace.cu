//pass
//--blockDim=128 --gridDim=8
//expect: race

// constPointerArgument with the helper declared to take a writable pointer: it may
// write any element of the tile while other threads read theirs.
__device__ float tileNorm(float *tile, int n);

__global__ void normalise(float *out, const float *in)
{
    __shared__ float tile[128];
    tile[threadIdx.x] = in[blockIdx.x * 128 + threadIdx.x];
    __syncthreads();
    float norm = tileNorm(tile, 128); //~ race(tile)
    out[blockIdx.x * 128 + threadIdx.x] = tile[threadIdx.x] / norm; //~ race(tile)
}
