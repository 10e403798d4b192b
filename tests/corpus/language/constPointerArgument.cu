//pass
//--blockDim=128 --gridDim=8
//expect: verified

// A helper defined in another file reads the block's shared tile through a pointer to
// `const`: it cannot write the tile, so the tile needs no barrier after the call.
__device__ float tileNorm(const float *tile, int n);

__global__ void normalise(float *out, const float *in)
{
    __shared__ float tile[128];
    tile[threadIdx.x] = in[blockIdx.x * 128 + threadIdx.x];
    __syncthreads();
    float norm = tileNorm(tile, 128);
    out[blockIdx.x * 128 + threadIdx.x] = tile[threadIdx.x] / norm;
}
