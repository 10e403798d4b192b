//--blockDim=64 --gridDim=1
__global__ void stencil(int *A) {
    int tid = threadIdx.x;
    A[tid] = A[tid] + A[tid + 1];
}

__global__ void compound(float *A) {
    unsigned tid = threadIdx.x;
    A[tid] += A[tid + 1];
}

__global__ void in_loop(int *A, int n) {
    int i = threadIdx.x;
    for (int k = 0; k < n; k++) {
        A[i] = A[i] + A[i + 1];
    }
}

__global__ void neighbours(unsigned *A) {
    int i = threadIdx.x + 1;
    A[i] = A[i - 1] + A[i + 1]; // both neighbours
}
