//--blockDim=[16,8] --gridDim=[192,48]
// Column pass of a separable convolution (the SDK's convolutionSeparable sample, 3072 x
// 3072 image): a block stages STEPS tiles of BY rows of its BX columns, plus one tile of
// apron above and below, in shared memory (transposed, padded by one to avoid bank
// conflicts); after one barrier every thread filters its STEPS pixels down the column.

#define R 8
#define TAPS (2 * R + 1)
#define BX 16
#define BY 8
#define STEPS 8
#define APRON 1

__constant__ float taps[TAPS];

__global__ void convolutionColumnsKernel(float *dst, float *src, int imageW, int imageH, int pitch)
{
    __requires(imageW == 3072);
    __requires(imageH == 3072);
    __requires(pitch == 3072);

    __shared__ float cols[BX][(STEPS + 2 * APRON) * BY + 1];

    // first pixel of this thread, counting the upper apron
    const int x0 = blockIdx.x * BX + threadIdx.x;
    const int y0 = (blockIdx.y * STEPS - APRON) * BY + threadIdx.y;
    src += y0 * pitch + x0;
    dst += y0 * pitch + x0;

    for (int t = APRON; t < APRON + STEPS; t++)
        cols[threadIdx.x][threadIdx.y + t * BY] = src[t * BY * pitch];

    // upper apron, zero above the image
    for (int t = 0; t < APRON; t++)
        cols[threadIdx.x][threadIdx.y + t * BY] = (y0 >= -t * BY) ? src[t * BY * pitch] : 0;

    // lower apron, zero below the image
    for (int t = APRON + STEPS; t < APRON + STEPS + APRON; t++)
        cols[threadIdx.x][threadIdx.y + t * BY] = (imageH - y0 > t * BY) ? src[t * BY * pitch] : 0;

    __syncthreads();

    for (int t = APRON; t < APRON + STEPS; t++) {
        float acc = 0;
        for (int k = -R; k <= R; k++)
            acc += taps[R - k] * cols[threadIdx.x][threadIdx.y + t * BY + k];
        dst[t * BY * pitch] = acc;
    }
}
