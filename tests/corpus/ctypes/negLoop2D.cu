//--blockDim=[16,8] --gridDim=1
//expect: race

// A loop from a signed parameter up to 0: its body runs only when m is negative, and
// then every thread of a row writes the row's first element.
__global__ void negLoop2D(float *A, int m)
{
    __shared__ float tile[8][16];
    unsigned x = threadIdx.x, y = threadIdx.y;
    tile[y][x] = A[y * 16 + x];
    __syncthreads();
    for (int k = m; k < 0; ++k)
        tile[y][0] += 1.0f; //~ race(tile)
    A[y * 16 + x] = tile[y][x]; //~ race(tile)
}
