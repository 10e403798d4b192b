//--blockDim=256 --gridDim=64
//expect: verified
// Linear search: every thread that sees the key raises the same flag. Several threads
// (of one block or of several) may write `found[0]` unordered, but they all store 1:
// a benign race, not reported (as GPUVerify).
__global__ void search(const int *data, int key, int *found)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (data[i] == key)
        found[0] = 1;
}
