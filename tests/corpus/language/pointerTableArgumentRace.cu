//pass
//--blockDim=128 --gridDim=8
//expect: race

// A helper the file only declares gets a local table of pointers: autosync does not
// keep what a local array holds, so the helper may write through any pointer, and
// every array the kernel can reach (the tile, and the global `in` and `out`) races.
__device__ void scaleRows(float **rows, int n);

__global__ void scale(float *out, const float *in)
{
    __shared__ float tile[128];
    float *rows[1] = {tile};
    tile[threadIdx.x] = in[blockIdx.x * 128 + threadIdx.x]; //~ race(in)
    __syncthreads();
    scaleRows(rows, 1); //~ race(in) race(out) race(tile)
    out[blockIdx.x * 128 + threadIdx.x] = tile[threadIdx.x]; //~ race(out) race(tile)
}
