//--blockDim=[16,8] --gridDim=1
//expect: verified

// Twin of negLoop2D: the loop from an `unsigned` m while below 0 never runs.
__global__ void negLoop2DUnsigned(float *A, unsigned m)
{
    __shared__ float tile[8][16];
    unsigned x = threadIdx.x, y = threadIdx.y;
    tile[y][x] = A[y * 16 + x];
    __syncthreads();
    for (unsigned k = m; k < 0; ++k)
        tile[y][0] += 1.0f;
    A[y * 16 + x] = tile[y][x];
}
