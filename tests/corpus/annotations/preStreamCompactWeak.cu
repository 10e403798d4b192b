//fail
//--blockDim=256 --gridDim=64
//expect: race

// Stream compaction with a precondition too weak for it: the prefix sums only grow,
// so two kept elements may get one slot.
__global__ void scatterKept(const unsigned *prefix, const unsigned *keep,
                            const float *values, float *packed)
{
    __requires(__implies(blockIdx.x * blockDim.x + threadIdx.x < __other_int(blockIdx.x * blockDim.x + threadIdx.x),
                         prefix[blockIdx.x * blockDim.x + threadIdx.x]
                             <= prefix[__other_int(blockIdx.x * blockDim.x + threadIdx.x)]));
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (keep[gid] == 1)
        packed[prefix[gid]] = values[gid] * 2.0f; //~ race(packed)
}
