//--blockDim=64 --gridDim=1
__global__ void same(int *A) {
    A[0] = threadIdx.x;
}

__global__ void braceless(int *A, int n) {
    int i = threadIdx.x;
    for (int k = 0; k < n; k++)
        A[i] = A[i] + A[i + 1];
}

__global__ void conditional(int *A, int c) {
    int i = threadIdx.x;
    A[i] = c ? A[i + 1] : 0;
}
