//--blockDim=64 --gridDim=1
//expect: race
// Odd threads read the high word of in[0], even threads the low word, and all store it
// into out[0]: a read of part of a cell is not the cell's value.
__global__ void k(float *out, const double *in)
{
    const float *h = (const float *)in;
    out[0] = h[threadIdx.x & 1]; //~ race(out)
}
