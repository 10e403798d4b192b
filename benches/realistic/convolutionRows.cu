//--blockDim=[16,4] --gridDim=[24,768]
// Row pass of a separable convolution (the SDK's convolutionSeparable sample, 3072 x
// 3072 image): a block stages STEPS tiles of BX pixels of each of its BY rows, plus one
// tile of apron on either side, in shared memory; after one barrier every thread
// filters its STEPS pixels with the (2R+1)-tap kernel held in constant memory.

#define R 8
#define TAPS (2 * R + 1)
#define BX 16
#define BY 4
#define STEPS 8
#define APRON 1

__constant__ float taps[TAPS];

__global__ void convolutionRowsKernel(float *dst, float *src, int imageW, int imageH, int pitch)
{
    __requires(imageW == 3072);
    __requires(imageH == 3072);
    __requires(pitch == 3072);

    __shared__ float rows[BY][(STEPS + 2 * APRON) * BX];

    // first pixel of this thread, counting the left apron
    const int x0 = (blockIdx.x * STEPS - APRON) * BX + threadIdx.x;
    const int y0 = blockIdx.y * BY + threadIdx.y;
    src += y0 * pitch + x0;
    dst += y0 * pitch + x0;

    // the tiles the block owns
    for (int t = APRON; t < APRON + STEPS; t++)
        rows[threadIdx.y][threadIdx.x + t * BX] = src[t * BX];

    // left apron, zero outside the image
    for (int t = 0; t < APRON; t++)
        rows[threadIdx.y][threadIdx.x + t * BX] = (x0 >= -t * BX) ? src[t * BX] : 0;

    // right apron, zero outside the image
    for (int t = APRON + STEPS; t < APRON + STEPS + APRON; t++)
        rows[threadIdx.y][threadIdx.x + t * BX] = (imageW - x0 > t * BX) ? src[t * BX] : 0;

    __syncthreads();

    for (int t = APRON; t < APRON + STEPS; t++) {
        float acc = 0;
        for (int k = -R; k <= R; k++)
            acc += taps[R - k] * rows[threadIdx.y][threadIdx.x + t * BX + k];
        dst[t * BX] = acc;
    }
}
