//--blockDim=128 --gridDim=1
//expect: verified
// A block-wide "any" vote through a shared bool: the threads whose value is over the
// limit all set `done = true`, the barrier orders the votes before the read.
__global__ void anyOver(const float *v, float limit, int *out)
{
    __shared__ bool done;
    if (threadIdx.x == 0)
        done = false;
    __syncthreads();
    if (v[threadIdx.x] > limit)
        done = true;
    __syncthreads();
    if (threadIdx.x == 0)
        out[0] = done ? 1 : 0;
}
