//--blockDim=64 --gridDim=1
//expect: race

// Each thread writes s[4t+2] and reads s[4t+2+m]; with `int m <= 3`, m = -4 reads the
// slot of thread t-1.
__global__ void negOffsetInt(int *out, int m)
{
    __requires(m <= 3);
    __shared__ int s[512];
    unsigned t = threadIdx.x;
    s[4 * t + 2 + 256] = t; //~ race(s)
    out[t] = s[4 * t + 2 + 256 + m]; //~ race(s)
}
