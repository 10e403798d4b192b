//--blockDim=[8,8] --gridDim=1
//expect: race

// threadIdx.y < m with m < 0 converts m to unsigned (at least 2^31): every thread enters,
// and the rows share s[0][x].
__global__ void unsignedIdLessNeg(float *A, int m)
{
    __requires(m < 0);
    __shared__ float s[8][8];
    if (threadIdx.y < m)
        s[0][threadIdx.x] = threadIdx.y; //~ race(s)
    A[threadIdx.y * 8 + threadIdx.x] = s[threadIdx.y][threadIdx.x]; //~ race(s)
}
