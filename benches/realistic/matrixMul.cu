//--blockDim=[16,16] --gridDim=[8,8]
// Tiled matrix product C = A * B (the SDK matrixMul sample's kernel): each block
// computes one T x T tile of C, walking a row of tiles of A and a column of tiles of B;
// each pair of tiles is staged in shared memory between two barriers (one before the
// tiles are used, one before they are overwritten by the next pair).

#define T 16

__global__ void matrixMul(float *C, float *A, float *B, int wA, int wB)
{
    __requires(wA == 256);
    __requires(wB == 128);

    int tx = threadIdx.x;
    int ty = threadIdx.y;

    // first tile of A (this block's row of tiles) and of B (its column of tiles)
    int aFirst = wA * T * blockIdx.y;
    int aLast = aFirst + wA - 1;
    int bFirst = T * blockIdx.x;

    float dot = 0;

    for (int a = aFirst, b = bFirst; a <= aLast; a += T, b += T * wB) {
        __shared__ float tileA[T][T];
        __shared__ float tileB[T][T];

        tileA[ty][tx] = A[a + wA * ty + tx];
        tileB[ty][tx] = B[b + wB * ty + tx];
        __syncthreads();

        for (int k = 0; k < T; ++k)
            dot += tileA[ty][k] * tileB[k][tx];
        __syncthreads();
    }

    int c = wB * T * blockIdx.y + T * blockIdx.x;
    C[c + wB * ty + tx] = dot;
}
