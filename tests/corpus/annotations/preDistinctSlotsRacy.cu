//fail
//--blockDim=64 --gridDim=1
//expect: race

// A gather-scatter through a table with a precondition that says nothing about its
// entries: two threads may scatter to one place.
__global__ void permute(const int *perm, const float *in, float *out)
{
    __requires(__uniform_int(perm[0]));
    int dst = perm[threadIdx.x];
    out[dst] = in[threadIdx.x] + 1.0f; //~ race(out)
}
