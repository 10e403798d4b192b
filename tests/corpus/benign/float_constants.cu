//--blockDim=64 --gridDim=1
//expect: race
// Two different float constants stored into one element by different threads race.
__global__ void pick(float *out)
{
    if (threadIdx.x % 2 == 0)
        out[0] = 1.0f; //~ race(out)
    else
        out[0] = 2.0f; //~ race(out)
}
