//fail
//--blockDim=64 --gridDim=4
//expect: race 8 9

// A plain read of a counter that other blocks update atomically.
__global__ void countAndPeek(unsigned int *counter, unsigned int *seen)
{
    unsigned int old = atomicAdd(counter, 1u);
    seen[blockIdx.x * blockDim.x + threadIdx.x] = old + counter[0];
}
