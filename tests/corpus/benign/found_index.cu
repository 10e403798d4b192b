//--blockDim=256 --gridDim=64
//expect: race
// The racy twin of found_flag.cu: the threads that see the key store their own
// position, so two of them may write different values to `found[0]`.
__global__ void search(const int *data, int key, int *found)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (data[i] == key)
        found[0] = i; //~ race(found)
}
