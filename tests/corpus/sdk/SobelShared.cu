//pass
//--blockDim=[16,4] --gridDim=[8,128]
//expect: verified

#define RADIUS 1
#define BlockWidth 80
#define SharedPitch 384

texture<unsigned char, 2> tex;

// Loads a strip of pixels (4 per thread, as uchar4) plus apron into shared memory.
__global__ void SobelShared(uchar4 *pSobelOriginal, unsigned short SobelPitch, short BlockWidthArg,
                            short SharedPitchArg, short w, short h, float fScale)
{
    __requires(SobelPitch == 512);
    __requires(BlockWidthArg == 80);
    __requires(SharedPitchArg == 384);
    __requires(w == 512);
    __requires(h == 512);
    __shared__ unsigned char LocalBlock[SharedPitch * (4 + 2 * RADIUS)];

    short u = 4 * blockIdx.x * BlockWidth;
    short v = blockIdx.y * blockDim.y + threadIdx.y;
    short ib;

    int SharedIdx = threadIdx.y * SharedPitch;

    for (ib = threadIdx.x; ib < BlockWidth + 2 * RADIUS; ib += blockDim.x) {
        LocalBlock[SharedIdx + 4 * ib + 0] = tex2D(tex, (float)(u + 4 * ib - RADIUS + 0), (float)(v - RADIUS));
        LocalBlock[SharedIdx + 4 * ib + 1] = tex2D(tex, (float)(u + 4 * ib - RADIUS + 1), (float)(v - RADIUS));
        LocalBlock[SharedIdx + 4 * ib + 2] = tex2D(tex, (float)(u + 4 * ib - RADIUS + 2), (float)(v - RADIUS));
        LocalBlock[SharedIdx + 4 * ib + 3] = tex2D(tex, (float)(u + 4 * ib - RADIUS + 3), (float)(v - RADIUS));
    }
    if (threadIdx.y < RADIUS * 2) {
        SharedIdx = (blockDim.y + threadIdx.y) * SharedPitch;
        for (ib = threadIdx.x; ib < BlockWidth + 2 * RADIUS; ib += blockDim.x) {
            LocalBlock[SharedIdx + 4 * ib + 0] = tex2D(tex, (float)(u + 4 * ib - RADIUS + 0), (float)(v + blockDim.y - RADIUS));
            LocalBlock[SharedIdx + 4 * ib + 1] = tex2D(tex, (float)(u + 4 * ib - RADIUS + 1), (float)(v + blockDim.y - RADIUS));
            LocalBlock[SharedIdx + 4 * ib + 2] = tex2D(tex, (float)(u + 4 * ib - RADIUS + 2), (float)(v + blockDim.y - RADIUS));
            LocalBlock[SharedIdx + 4 * ib + 3] = tex2D(tex, (float)(u + 4 * ib - RADIUS + 3), (float)(v + blockDim.y - RADIUS));
        }
    }

    __syncthreads();

    u >>= 2;
    uchar4 *pSobel = (uchar4 *)(((char *)pSobelOriginal) + v * SobelPitch);
    SharedIdx = threadIdx.y * SharedPitch;

    for (ib = threadIdx.x; ib < BlockWidth; ib += blockDim.x) {
        unsigned char pix00 = LocalBlock[SharedIdx + 4 * ib + 0 * SharedPitch + 0];
        unsigned char pix01 = LocalBlock[SharedIdx + 4 * ib + 0 * SharedPitch + 1];
        unsigned char pix10 = LocalBlock[SharedIdx + 4 * ib + 1 * SharedPitch + 0];
        unsigned char pix21 = LocalBlock[SharedIdx + 4 * ib + 2 * SharedPitch + 1];
        uchar4 out;
        out.x = (unsigned char)(fScale * (pix00 + pix01));
        out.y = (unsigned char)(fScale * (pix10 - pix21));
        out.z = pix21;
        out.w = pix00;
        if (u + ib < w / 4 && v < h) pSobel[u + ib] = out;
    }
}
