//--blockDim=[8,8] --gridDim=1
//expect: verified

// Twin of unsignedIdLessNeg: (int)threadIdx.y < m < 0 is false for every thread.
__global__ void signedIdLessNeg(float *A, int m)
{
    __requires(m < 0);
    __shared__ float s[8][8];
    if ((int)threadIdx.y < m)
        s[0][threadIdx.x] = threadIdx.y;
    A[threadIdx.y * 8 + threadIdx.x] = s[threadIdx.y][threadIdx.x];
}
