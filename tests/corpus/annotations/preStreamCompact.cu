//pass
//--blockDim=256 --gridDim=64
//expect: verified

// Stream compaction: the kept elements are scattered to the positions an exclusive
// prefix sum of the keep flags gave them. The precondition says the sums are those of
// 0/1 flags: a thread with a smaller index ends its slot before the other's begins.
__global__ void scatterKept(const unsigned *prefix, const unsigned *keep,
                            const float *values, float *packed)
{
    __requires(__implies(blockIdx.x * blockDim.x + threadIdx.x < __other_int(blockIdx.x * blockDim.x + threadIdx.x),
                         prefix[blockIdx.x * blockDim.x + threadIdx.x] + keep[blockIdx.x * blockDim.x + threadIdx.x]
                             <= prefix[__other_int(blockIdx.x * blockDim.x + threadIdx.x)]));
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (keep[gid] == 1)
        packed[prefix[gid]] = values[gid] * 2.0f;
}
