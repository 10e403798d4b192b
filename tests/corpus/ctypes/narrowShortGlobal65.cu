//--blockDim=1024 --gridDim=65
//expect: race

// Twin of narrowShortGlobal with 65 blocks: threads i and i + 65536 share a `short` index.
__global__ void narrowShortGlobal65(int *A)
{
    short g = blockIdx.x * blockDim.x + threadIdx.x;
    A[g + 32768] = blockIdx.x; //~ race(A)
}
