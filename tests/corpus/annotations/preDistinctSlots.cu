//pass
//--blockDim=64 --gridDim=1
//expect: verified

// A gather-scatter through a permutation table: the precondition says two threads
// never read the same slot from it, so their writes go to different places.
__global__ void permute(const int *perm, const float *in, float *out)
{
    __requires(__distinct_int(perm[threadIdx.x]));
    int dst = perm[threadIdx.x];
    out[dst] = in[threadIdx.x] + 1.0f;
}
