//pass
//--blockDim=[8,8] --gridDim=[64,64]
//expect: verified

#define BLOCK_SIZE 8
#define BLOCK_SIZE_LOG2 3
#define IMAD(a, b, c) (__mul24((a), (b)) + (c))

__constant__ float DCTv8matrix[BLOCK_SIZE * BLOCK_SIZE];
__constant__ float DCTv8matrixT[BLOCK_SIZE * BLOCK_SIZE];

// Two matrix products per 8x8 block: Y = D * X * D^T, each via shared memory.
__global__ void CUDAkernel1DCT(float *Dst, int ImgWidth, int OffsetXBlocks, int OffsetYBlocks)
{
    __requires(ImgWidth == 512);
    __requires(OffsetXBlocks == 0);
    __requires(OffsetYBlocks == 0);
    __shared__ float CurBlockLocal1[BLOCK_SIZE * BLOCK_SIZE];
    __shared__ float CurBlockLocal2[BLOCK_SIZE * BLOCK_SIZE];

    const int bx = blockIdx.x + OffsetXBlocks;
    const int by = blockIdx.y + OffsetYBlocks;
    const int tx = threadIdx.x;
    const int ty = threadIdx.y;

    CurBlockLocal1[(ty << BLOCK_SIZE_LOG2) + tx] = Dst[IMAD(IMAD(by, BLOCK_SIZE, ty), ImgWidth, IMAD(bx, BLOCK_SIZE, tx))];
    __syncthreads();

    float curelem = 0;
    int DCTv8matrixIndex = 0 * BLOCK_SIZE + ty;
    int CurBlockLocal1Index = 0 * BLOCK_SIZE + tx;
#pragma unroll
    for (int i = 0; i < BLOCK_SIZE; i++) {
        curelem += DCTv8matrix[DCTv8matrixIndex] * CurBlockLocal1[CurBlockLocal1Index];
        DCTv8matrixIndex += BLOCK_SIZE;
        CurBlockLocal1Index += BLOCK_SIZE;
    }
    CurBlockLocal2[(ty << BLOCK_SIZE_LOG2) + tx] = curelem;
    __syncthreads();

    curelem = 0;
    int CurBlockLocal2Index = (ty << BLOCK_SIZE_LOG2) + 0;
    DCTv8matrixIndex = 0 * BLOCK_SIZE + tx;
#pragma unroll
    for (int i = 0; i < BLOCK_SIZE; i++) {
        curelem += CurBlockLocal2[CurBlockLocal2Index] * DCTv8matrix[DCTv8matrixIndex];
        CurBlockLocal2Index += 1;
        DCTv8matrixIndex += BLOCK_SIZE;
    }
    CurBlockLocal1[(ty << BLOCK_SIZE_LOG2) + tx] = curelem;
    __syncthreads();

    Dst[IMAD(IMAD(by, BLOCK_SIZE, ty), ImgWidth, IMAD(bx, BLOCK_SIZE, tx))] = CurBlockLocal1[(ty << BLOCK_SIZE_LOG2) + tx];
}
