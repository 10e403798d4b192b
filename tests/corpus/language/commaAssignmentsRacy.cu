//fail
//--blockDim=64 --gridDim=1
//expect: race

// Like commaAssignments, but an assignment inside a comma expression writes the
// neighbour's slot while that neighbour reads its own.
__global__ void commaMixRacy(int *x, int *y, int n)
{
    __shared__ int s[64];
    int i = threadIdx.x;
    int j;
    s[i] = x[i];
    __syncthreads();
    int k = (j = (i + 1) % 64, s[j] = 0, s[i]); //~ race(s)
    y[i] = k;
}
