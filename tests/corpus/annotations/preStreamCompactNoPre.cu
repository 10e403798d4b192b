//fail
//--blockDim=256 --gridDim=64
//expect: race

// Stream compaction without the precondition on the prefix sums: nothing keeps two
// kept elements from one slot.
__global__ void scatterKept(const unsigned *prefix, const unsigned *keep,
                            const float *values, float *packed)
{
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (keep[gid] == 1)
        packed[prefix[gid]] = values[gid] * 2.0f; //~ race(packed)
}
