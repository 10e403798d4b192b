//--blockDim=64 --gridDim=4
//expect: race
// A plain read-modify-write of the counter: races on it, and on the slots.
__global__ void queue(unsigned int *count, float *out)
{
    unsigned int i = count[0]; //~ race(count)
    count[0] = i + 1; //~ race(count)
    out[i] = threadIdx.x; //~ race(out)
}
