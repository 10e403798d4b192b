//pass
//--blockDim=256 --gridDim=64
//expect: race
//note: findCellStartD writes cellStart[hash] for a hash read from memory; only sorted hashes keep the writers distinct, so for arbitrary contents (docs/semantics.md, Values and arithmetic) it races.

struct SimParams {
    float3 worldOrigin;
    float3 cellSize;
    uint3 gridSize;
    unsigned int numCells;
};

__constant__ SimParams params;

__device__ int3 calcGridPos(float3 p)
{
    int3 gridPos;
    gridPos.x = floorf((p.x - params.worldOrigin.x) / params.cellSize.x);
    gridPos.y = floorf((p.y - params.worldOrigin.y) / params.cellSize.y);
    gridPos.z = floorf((p.z - params.worldOrigin.z) / params.cellSize.z);
    return gridPos;
}

__device__ unsigned int calcGridHash(int3 gridPos)
{
    gridPos.x = gridPos.x & (params.gridSize.x - 1);
    gridPos.y = gridPos.y & (params.gridSize.y - 1);
    gridPos.z = gridPos.z & (params.gridSize.z - 1);
    return __umul24(__umul24(gridPos.z, params.gridSize.y), params.gridSize.x) + __umul24(gridPos.y, params.gridSize.x) + gridPos.x;
}

// Particles: hash each particle into its grid cell (one thread per particle).
__global__ void calcHashD(unsigned int *gridParticleHash, unsigned int *gridParticleIndex, float4 *pos, unsigned int numParticles)
{
    unsigned int index = __umul24(blockIdx.x, blockDim.x) + threadIdx.x;
    if (index >= numParticles) return;
    volatile float4 p = pos[index];
    int3 gridPos = calcGridPos(make_float3(p.x, p.y, p.z));
    unsigned int hash = calcGridHash(gridPos);
    gridParticleHash[index] = hash;
    gridParticleIndex[index] = index;
}

// Finds where each cell starts in the sorted hash list, by comparing with the
// previous particle's hash staged in shared memory.
__global__ void findCellStartD(unsigned int *cellStart, unsigned int *cellEnd, unsigned int *gridParticleHash, unsigned int numParticles)
{
    extern __shared__ unsigned int sharedHash[];
    unsigned int index = __umul24(blockIdx.x, blockDim.x) + threadIdx.x;
    unsigned int hash;
    if (index < numParticles) {
        hash = gridParticleHash[index];
        sharedHash[threadIdx.x + 1] = hash;
        if (index > 0 && threadIdx.x == 0) sharedHash[0] = gridParticleHash[index - 1];
    }
    __syncthreads();
    if (index < numParticles) {
        if (index == 0 || hash != sharedHash[threadIdx.x]) {
            cellStart[hash] = index; //~ race(cellStart)
            if (index > 0) cellEnd[sharedHash[threadIdx.x]] = index; //~ race(cellEnd)
        }
        if (index == numParticles - 1) cellEnd[hash] = index + 1; //~ race(cellEnd)
    }
}
