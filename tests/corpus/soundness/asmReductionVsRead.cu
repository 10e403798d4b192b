//--blockDim=64 --gridDim=2
//expect: race

// A PTX reduction is an atomic update: reductions do not race with each other, but a
// plain read of the counter in the same launch does.
__global__ void tally(unsigned *counter, unsigned *seen)
{
    asm volatile("red.global.add.u32 [%0], 1;" :: "l"(counter) : "memory"); //~ race(counter)
    seen[blockIdx.x * blockDim.x + threadIdx.x] = counter[0]; //~ race(counter)
}
