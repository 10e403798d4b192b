//pass
//--blockDim=[16,12] --gridDim=[192,256]
//expect: verified

#define KERNEL_RADIUS 8
#define KERNEL_LENGTH (2 * KERNEL_RADIUS + 1)
#define IMAD(a, b, c) (__mul24((a), (b)) + (c))
#define iDivUp(a, b) (((a) % (b) != 0) ? ((a) / (b) + 1) : ((a) / (b)))

__constant__ float c_Kernel[KERNEL_LENGTH];
texture<float, 2, cudaReadModeElementType> texSrc;

// Row filter reading the image through a 2-D texture with clamping.
__global__ void convolutionRowsKernel(float *d_Dst, int imageW, int imageH)
{
    __requires(imageW == 3072);
    __requires(imageH == 3072);
    const int ix = IMAD(blockDim.x, blockIdx.x, threadIdx.x);
    const int iy = IMAD(blockDim.y, blockIdx.y, threadIdx.y);
    const float x = (float)ix + 0.5f;
    const float y = (float)iy + 0.5f;

    if (ix >= imageW || iy >= imageH) return;

    float sum = 0;
#pragma unroll
    for (int k = -KERNEL_RADIUS; k <= KERNEL_RADIUS; k++)
        sum += tex2D(texSrc, x + (float)k, y) * c_Kernel[KERNEL_RADIUS - k];

    d_Dst[IMAD(iy, imageW, ix)] = sum;
}
