//fail
//--blockDim=64 --gridDim=4
//expect: race

// A plain read of a counter that other blocks update atomically.
__global__ void countAndPeek(unsigned int *counter, unsigned int *seen)
{
    unsigned int old = atomicAdd(counter, 1u); //~ race(counter)
    seen[blockIdx.x * blockDim.x + threadIdx.x] = old + counter[0]; //~ race(counter)
}
