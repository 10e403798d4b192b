//--blockDim=64 --gridDim=8
//expect: race
// Twin of claim_range.cu with a signed amount: a thread that adds a negative `d` gives
// slots back, and another thread takes them again.
__global__ void emit(int *count, float *verts, int d)
{
    int pos = atomicAdd(count, d);
    verts[pos] = threadIdx.x; //~ race(verts)
}
