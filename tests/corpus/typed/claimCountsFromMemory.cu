//--blockDim=128 --gridDim=16
//expect: verified
// Stream compaction with per-thread counts that an earlier pass stored as `unsigned
// int`: each thread claims `n` slots of the output at once and fills them. The count
// read from memory is an `unsigned int`, so the claim covers exactly the slots the
// loop writes.
__global__ void compact(const unsigned int *counts, unsigned int *total, int *out)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int n = counts[i];
    unsigned int pos = atomicAdd(total, n);
    for (unsigned int j = 0; j < n; j++)
        out[pos + j] = i;
}
