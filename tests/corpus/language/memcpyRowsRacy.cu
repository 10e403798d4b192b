//fail
//--blockDim=64 --gridDim=1
//expect: race

// Like memcpyRows, but each `memcpy` copies five floats: the last one lands in the
// first slot of the next thread's row, which that thread writes too.
__global__ void rowCopyRacy(float *out, const float *in)
{
    __shared__ float rows[64 * 4 + 1];
    int t = threadIdx.x;
    memcpy(rows + t * 4, in + t * 4, 5 * sizeof(float)); //~ race(rows)
    __syncthreads();
    out[t] = rows[t * 4];
}
