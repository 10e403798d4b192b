//--blockDim=32 --gridDim=64
//expect: race
// uniformSelect choosing by the thread: odd and even threads store different flags.
__global__ void setFlags(const int *count, double *dflag, float *fflag, int limit)
{
    dflag[0] = (limit > 16) ? 0.5 : 0.25;
    fflag[0] = threadIdx.x % 2 ? 1.0f : -1.0f; //~ race(fflag)
}
