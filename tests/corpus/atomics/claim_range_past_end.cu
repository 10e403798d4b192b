//--blockDim=64 --gridDim=8
//expect: race
// Twin of claim_range.cu that also writes one slot past its range (`pos + n`), which is
// the first slot of the next thread's range.
__global__ void emit(unsigned int *count, float *verts)
{
    unsigned int n = 2 * (threadIdx.x % 4);
    unsigned int pos = atomicAdd(count, n);
    for (unsigned int j = 0; j <= n; j++)
        verts[pos + j] = threadIdx.x; //~ race(verts)
}
