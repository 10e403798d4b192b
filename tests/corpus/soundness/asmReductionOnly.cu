//--blockDim=64 --gridDim=2
//expect: verified

// Every update of the counter is atomic: a PTX reduction and atomicAdd.
__global__ void tally(unsigned *counter)
{
    asm volatile("red.global.add.u32 [%0], 1;" :: "l"(counter) : "memory");
    if (threadIdx.x == 0)
        atomicAdd(counter, 2u);
}
