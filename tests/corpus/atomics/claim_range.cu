//--blockDim=64 --gridDim=8
//expect: verified
// Marching-cubes style output: each thread claims `2 * (threadIdx.x % 4)` slots at
// once and fills them; the claimed ranges `[pos, pos + count)` are disjoint.
__global__ void emit(unsigned int *count, float *verts)
{
    unsigned int n = 2 * (threadIdx.x % 4);
    unsigned int pos = atomicAdd(count, n);
    for (unsigned int j = 0; j < n; j++)
        verts[pos + j] = 1.0f;
}
