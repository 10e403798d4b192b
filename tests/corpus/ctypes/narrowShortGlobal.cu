//--blockDim=1024 --gridDim=64
//expect: verified

// 65536 threads: the global index truncated to `short` is -32768..32767, each value once.
__global__ void narrowShortGlobal(int *A)
{
    short g = blockIdx.x * blockDim.x + threadIdx.x;
    A[g + 32768] = g;
}
