//--blockDim=32 --gridDim=8
//expect: race

// Twin of modParamOffset: i + i % d collides (d = 2: i = 1 and i = 2 both give 2).
__global__ void modThreadOffset(int *A, int n, int d)
{
    for (int k = 0; k < 4; ++k) {
        unsigned i = (blockIdx.x * blockDim.x + threadIdx.x) * 4 + k;
        A[i + i % d] = k; //~ race(A)
    }
}
