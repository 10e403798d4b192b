//--blockDim=128 --gridDim=4
//expect: race

// Twin of minusOneLessUnsigned: -1LL < n compares as `long long`, always true.
__global__ void minusOneLessWide(int *out, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (-1LL < n)
        out[0] = i; //~ race(out)
    else
        out[i + 1] = n;
}
