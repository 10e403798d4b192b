//--blockDim=64 --gridDim=8
//expect: race
// Twin of claim_byte_loop.cu whose loop also writes `pos + n`, one past the claimed
// range: the first slot of the range another thread may claim next.
__global__ void generate(const unsigned char *numVerts, const unsigned int *cubeIndex, unsigned int *next, float *verts)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int n = numVerts[cubeIndex[i]];
    unsigned int pos = atomicAdd(next, n);
    for (unsigned int j = 0; j <= n; j++)
        verts[pos + j] = threadIdx.x; //~ race(verts)
}
