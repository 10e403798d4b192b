//--blockDim=128 --gridDim=1
//expect: race
// Twin of shared_done_flag.cu without the second barrier: the writes of `true` are
// still benign among themselves, but thread 0 reads the flag while others may write
// it (a read-write race is never benign).
__global__ void anyOver(const float *v, float limit, int *out)
{
    __shared__ bool done;
    if (threadIdx.x == 0)
        done = false;
    __syncthreads();
    if (v[threadIdx.x] > limit)
        done = true; //~ race(done)
    if (threadIdx.x == 0)
        out[0] = done ? 1 : 0; //~ race(done)
}
