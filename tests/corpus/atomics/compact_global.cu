//--blockDim=128 --gridDim=32
//expect: verified
// Stream compaction: every thread whose element passes the filter takes the next free
// slot of the output from a global counter, so no two threads share a slot.
__global__ void compact(const int *in, int *out, unsigned int *count)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[i];
    if (v > 0)
        out[atomicAdd(count, 1u)] = v;
}
