//fail
//--blockDim=128 --gridDim=4
//expect: race

// Like pointerChoiceParams, but the chosen parameter is written one element ahead:
// a thread writes the element of `odd` (or `even`) that the next thread writes too.
__global__ void splitWriteRacy(float *even, float *odd, int parity)
{
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    float *p = even;
    p[g] = 0.0f; //~ race(even)
    p = odd;
    p[g] = 1.0f; //~ race(odd)
    float *q = (parity & 1) ? odd : even;
    q[g + 1] = 2.0f; //~ race(even) race(odd)
}
