//pass
//--blockDim=[16,16] --gridDim=[8,8]
//expect: verified
//expect-tool: race (false alarm: the tile of each block comes from `blockIndex`, a distinct ticket of the atomic counter that thread 0 stores in shared memory; the verifier does not follow a value through memory, so two blocks may get the same tile and their writes to `dst` race)

__device__ unsigned int blockCounter;

__device__ inline int CalcMandelbrot(const float xPos, const float yPos, const int crunch)
{
    float y = yPos, x = xPos, yy = y * y, xx = x * x;
    int i = crunch;
    while (--i && (xx + yy < 4.0f)) {
        y = x * y * 2.0f + yPos;
        x = xx - yy + xPos;
        yy = y * y;
        xx = x * x;
    }
    return i;
}

// Persistent blocks: thread 0 grabs the next tile index with an atomic and
// shares it through shared memory; the whole block loops until the tiles run out.
__global__ void Mandelbrot0(uchar4 *dst, const int imageW, const int imageH, const int crunch, const float xOff,
                            const float yOff, const float scale, const int gridWidth, const int numBlocks)
{
    __requires(imageW == 800);
    __requires(imageH == 600);
    __requires(gridWidth == 50);
    __requires(numBlocks == 50 * 38);
    __shared__ unsigned int blockIndex;
    __shared__ unsigned int blockX, blockY;

    while (1) {
        if ((threadIdx.x == 0) && (threadIdx.y == 0)) {
            blockIndex = atomicAdd(&blockCounter, 1);
            blockX = blockIndex % gridWidth;
            blockY = blockIndex / gridWidth;
        }
        __syncthreads();
        if (blockIndex >= numBlocks) break;

        const int ix = blockDim.x * blockX + threadIdx.x;
        const int iy = blockDim.y * blockY + threadIdx.y;
        if ((ix < imageW) && (iy < imageH)) {
            const float xPos = (float)ix * scale + xOff;
            const float yPos = (float)iy * scale + yOff;
            int m = CalcMandelbrot(xPos, yPos, crunch);
            m = m > 0 ? crunch - m : 0;
            uchar4 color;
            color.x = m * 3;
            color.y = m * 5;
            color.z = m * 7;
            color.w = 255;
            dst[imageW * iy + ix] = color; //~? race(dst)
        }
        __syncthreads();
    }
}
