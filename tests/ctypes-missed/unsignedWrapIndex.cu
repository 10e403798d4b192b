//--blockDim=48 --gridDim=1
//expect: race
//tool: verified (documented no-overflow deviation: thread 0's j is -1, not UINT_MAX); --wrap: race

// j = threadIdx.x - 1 wraps to UINT_MAX for thread 0; UINT_MAX % 48 = 15 = thread 16's index.
__global__ void unsignedWrapIndex(int *A)
{
    unsigned j = threadIdx.x - 1;
    A[j % 48] = 1; //~ race(A)
}
