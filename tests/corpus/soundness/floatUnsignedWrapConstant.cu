//--blockDim=64 --gridDim=1
//expect: race
// `~0u` converts to 2^32 and `~0ull` to 2^64: the odd and even threads store different
// floats. A constant is brought into its own type before it is converted.
__global__ void k(float *out)
{
    out[0] = (threadIdx.x & 1) ? (float)~0u : (float)~0ull; //~ race(out)
}
