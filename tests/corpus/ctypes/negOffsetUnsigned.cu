//--blockDim=64 --gridDim=1
//expect: verified

// Twin of negOffsetInt: `unsigned m <= 3` only reaches the gaps between the slots.
__global__ void negOffsetUnsigned(int *out, unsigned m)
{
    __requires(m <= 3);
    __shared__ int s[512];
    unsigned t = threadIdx.x;
    s[4 * t + 2 + 256] = t;
    out[t] = s[4 * t + 2 + 256 + m];
}
