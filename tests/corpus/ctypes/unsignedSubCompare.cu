//--blockDim=64 --gridDim=1
//expect: race

// threadIdx.x - 2 is unsigned: threads 0 and 1 get 2^32-2 and 2^32-1, both > 100.
__global__ void unsignedSubCompare(int *A)
{
    if (threadIdx.x - 2 > 100)
        A[0] = threadIdx.x; //~ race(A)
}
