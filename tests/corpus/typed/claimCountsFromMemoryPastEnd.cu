//--blockDim=128 --gridDim=16
//expect: race
// Twin of claimCountsFromMemory.cu whose loop writes one slot past its claim: the
// slot after a thread's range is the first slot of another thread's range.
__global__ void compact(const unsigned int *counts, unsigned int *total, int *out)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int n = counts[i];
    unsigned int pos = atomicAdd(total, n);
    for (unsigned int j = 0; j <= n; j++)
        out[pos + j] = i; //~ race(out)
}
