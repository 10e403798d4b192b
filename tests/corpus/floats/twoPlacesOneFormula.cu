//--blockDim=64 --gridDim=1
//expect: race
// Two places compute the same formula, but the compiler may fuse `a * b + c` into one
// multiply-add at one place and not at the other: the verifier does not assume that
// two places round alike, so the even and odd threads may store different values.
__global__ void twoPlaces(float *out, float a, float b, float c)
{
    if (threadIdx.x % 2 == 0)
        out[0] = a * b + c; //~ race(out)
    else
        out[0] = a * b + c; //~ race(out)
}
