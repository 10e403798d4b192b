//pass
//--blockDim=[16,16] --gridDim=[8,8]
//expect: verified
//expect-tool: divergence (false alarm: the loop exit and the tile come from `blockIndex`, one shared value thread 0 writes before the barrier, and distinct tickets of the atomic counter; the verifier reads shared memory per thread as arbitrary values)

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
            blockIndex = atomicAdd(&blockCounter, 1); //~? race(blockIndex)
            blockX = blockIndex % gridWidth; //~? race(blockX)
            blockY = blockIndex / gridWidth; //~? race(blockY)
        }
        __syncthreads(); //~? divergence
        if (blockIndex >= numBlocks) break; //~? race(blockIndex)

        const int ix = blockDim.x * blockX + threadIdx.x; //~? race(blockX)
        const int iy = blockDim.y * blockY + threadIdx.y; //~? race(blockY)
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
        __syncthreads(); //~? divergence
    }
}
