//--blockDim=64 --gridDim=1
//expect: race
// The same value written by a plain store and by an atomic exchange is still a race:
// an atomic and a plain access of one element race whatever the values.
__global__ void mark(int *flag)
{
    if (threadIdx.x == 0)
        atomicExch(&flag[0], 1); //~ race(flag)
    else
        flag[0] = 1; //~ race(flag)
}
