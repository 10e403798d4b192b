//--blockDim=64 --gridDim=8
//expect: verified
// Marching-cubes style: the vertex count of each cell comes from a byte table in
// memory; each thread claims that many slots and fills them in a loop.
__global__ void generate(const unsigned char *numVerts, const unsigned int *cubeIndex, unsigned int *next, float *verts)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int n = numVerts[cubeIndex[i]];
    unsigned int pos = atomicAdd(next, n);
    for (unsigned int j = 0; j < n; j++)
        verts[pos + j] = 0.5f;
}
