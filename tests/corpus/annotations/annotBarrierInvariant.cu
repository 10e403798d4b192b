//pass
//--blockDim=256 --gridDim=1
//expect: verified

// A prefix-sum step annotated with barrier invariants (ignored by autosync).
__global__ void barrierInv(int *out, int *in)
{
    __shared__ int buf[256];
    unsigned int tid = threadIdx.x;
    buf[tid] = in[tid];
    __barrier_invariant(buf[tid] == in[tid], tid);
    __syncthreads();
    int v = tid > 0 ? buf[tid - 1] : 0;
    __syncthreads();
    buf[tid] += v;
    __syncthreads();
    if (__add_noovfl(tid, 1) < 256) out[tid] = buf[tid];
}
