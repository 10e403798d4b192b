//--blockDim=64 --gridDim=1
//expect: race
// Thread 0 stores 0x3F80 into the high half of out[0]; thread 1 stores a float whose
// high half is 0. The numbers are equal, the bytes are not: a store of part of a cell
// is not an equal-value store.
__global__ void k(float *out)
{
    if (threadIdx.x == 0)
        ((unsigned short *)out)[1] = 16256; //~ race(out)
    if (threadIdx.x == 1)
        out[0] = 2.2779508e-41f; //~ race(out)
}
