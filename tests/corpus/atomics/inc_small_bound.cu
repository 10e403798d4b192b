//--blockDim=128 --gridDim=4
//expect: race
//expect-unfixable
// Twin of inc_max.cu with a ring of 64 slots: atomicInc wraps at its bound and hands
// out a slot again.
__global__ void tickets(unsigned int *g_next, int *g_out)
{
    g_out[atomicInc(g_next, 63u)] = threadIdx.x; //~ race(g_out)
}
