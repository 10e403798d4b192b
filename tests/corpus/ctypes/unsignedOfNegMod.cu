//--blockDim=8 --gridDim=1
//expect: race

// (unsigned)d for d = -4..-1 is 2^32-4.. whose remainders mod 10 are 2..5: threads 0 and 6
// (d = -4 and d = 2) share s[2].
__global__ void unsignedOfNegMod(int *out)
{
    __shared__ int s[16];
    int d = (int)threadIdx.x - 4;
    s[(unsigned)d % 10] = d; //~ race(s)
    __syncthreads();
    out[threadIdx.x] = s[threadIdx.x];
}
