//--blockDim=64 --gridDim=1
//expect: race

// m = 0 is allowed: t % 0 is undefined, an unknown value that may be equal for two
// threads (and m = 1..63 fold threads together anyway).
__global__ void modZeroIndex(int *A, unsigned m)
{
    __requires(m < 64);
    unsigned t = threadIdx.x;
    A[t % m] = t; //~ race(A)
}
