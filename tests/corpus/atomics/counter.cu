//--blockDim=64 --gridDim=4
//expect: verified
// Every thread increments one counter: atomic/atomic pairs never race.
__global__ void count(unsigned int *counter, int *maxima)
{
    atomicAdd(counter, 1);
    atomicMax(&maxima[threadIdx.x % 8], (int)blockIdx.x);
    atomicSub(&counter[1], 2);
}
