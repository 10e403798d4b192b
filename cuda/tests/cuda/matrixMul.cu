//--blockDim=[16,16] --gridDim=[4,4]
// Tiled matrix multiplication C = A * B in the style of the SDK's matrixMul sample:
// each block computes one BLOCK_SIZE x BLOCK_SIZE tile of C, walking the tiles of A and
// B through shared memory.

#define BLOCK_SIZE 16

// Element (i, j) of the shared tiles.
#define AS(i, j) As[i][j]
#define BS(i, j) Bs[i][j]

__global__ void matrixMul(float *C, float *A, float *B, int wA, int wB)
{
    __requires(wA == 64);
    __requires(wB == 64);

    // Block and thread index
    int bx = blockIdx.x;
    int by = blockIdx.y;
    int tx = threadIdx.x;
    int ty = threadIdx.y;

    // First and last sub-matrix of A processed by the block, and the step.
    int aBegin = wA * BLOCK_SIZE * by;
    int aEnd   = aBegin + wA - 1;
    int aStep  = BLOCK_SIZE;
    int bBegin = BLOCK_SIZE * bx;
    int bStep  = BLOCK_SIZE * wB;

    float Csub = 0;

    for (int a = aBegin, b = bBegin; a <= aEnd; a += aStep, b += bStep)
    {
        __shared__ float As[BLOCK_SIZE][BLOCK_SIZE];
        __shared__ float Bs[BLOCK_SIZE][BLOCK_SIZE];

        AS(ty, tx) = A[a + wA * ty + tx];
        BS(ty, tx) = B[b + wB * ty + tx];

        // Make sure the matrices are loaded.
        __syncthreads();

#pragma unroll
        for (int k = 0; k < BLOCK_SIZE; ++k)
            Csub += AS(ty, k) * BS(k, tx);

        // Make sure the computation is done before the next tiles are loaded.
        __syncthreads();
    }

    int c = wB * BLOCK_SIZE * by + BLOCK_SIZE * bx;
    C[c + wB * ty + tx] = Csub;
}
