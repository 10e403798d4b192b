//--blockDim=32 --gridDim=8
//expect: verified

// n % d is uniform (also for d = 0): each thread writes its own element.
__global__ void modParamOffset(int *A, int n, int d)
{
    for (int k = 0; k < 4; ++k) {
        unsigned i = (blockIdx.x * blockDim.x + threadIdx.x) * 4 + k;
        A[i + n % d] = k;
    }
}
