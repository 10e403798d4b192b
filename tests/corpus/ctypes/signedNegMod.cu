//--blockDim=8 --gridDim=1
//expect: verified

// Twin of unsignedOfNegMod: d % 10 on `int` keeps the sign, -4..3 are distinct.
__global__ void signedNegMod(int *out)
{
    __shared__ int s[16];
    int d = (int)threadIdx.x - 4;
    s[d % 10 + 4] = d;
    __syncthreads();
    out[threadIdx.x] = s[threadIdx.x];
}
