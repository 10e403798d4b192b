//pass
//--blockDim=[16,16] --gridDim=[32,32]
//expect: verified

#define SMEM(X, Y) sdata[(Y) * tilew + (X)]

texture<uchar4, 2, cudaReadModeElementType> inTex;

__device__ unsigned int rgbToInt(float r, float g, float b)
{
    r = __saturatef(r);
    g = __saturatef(g);
    b = __saturatef(b);
    return ((unsigned int)(b * 255.0f) << 16) | ((unsigned int)(g * 255.0f) << 8) | (unsigned int)(r * 255.0f);
}

// Disc blur: the block stages its tile plus an apron of r pixels in dynamic
// shared memory (the corners loaded by the corner threads), then filters.
__global__ void cudaProcess(unsigned int *g_odata, int imgw, int imgh, int tilew, int r, float threshold, float highlight)
{
    __requires(imgw == 512);
    __requires(imgh == 512);
    __requires(r == 4);
    __requires(tilew == 16 + 2 * 4);
    extern __shared__ uchar4 sdata[];

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int bw = blockDim.x;
    int bh = blockDim.y;
    int x = blockIdx.x * bw + tx;
    int y = blockIdx.y * bh + ty;

    SMEM(r + tx, r + ty) = tex2D(inTex, x, y);
    if (tx < r) {
        SMEM(tx, r + ty) = tex2D(inTex, x - r, y);
        SMEM(r + bw + tx, r + ty) = tex2D(inTex, x + bw, y);
    }
    if (ty < r) {
        SMEM(r + tx, ty) = tex2D(inTex, x, y - r);
        SMEM(r + tx, r + bh + ty) = tex2D(inTex, x, y + bh);
    }
    if ((tx < r) && (ty < r)) {
        SMEM(tx, ty) = tex2D(inTex, x - r, y - r);
        SMEM(tx, r + bh + ty) = tex2D(inTex, x - r, y + bh);
        SMEM(r + bw + tx, ty) = tex2D(inTex, x + bh, y - r);
        SMEM(r + bw + tx, r + bh + ty) = tex2D(inTex, x + bw, y + bh);
    }
    __syncthreads();

    float rsum = 0.0f, gsum = 0.0f, bsum = 0.0f, samples = 0.0f;
    for (int dy = -r; dy <= r; dy++) {
        for (int dx = -r; dx <= r; dx++) {
            if (dx * dx + dy * dy <= r * r) {
                uchar4 pixel = SMEM(r + tx + dx, r + ty + dy);
                float lum = pixel.x * 0.3f + pixel.y * 0.59f + pixel.z * 0.11f;
                float w = (lum > threshold) ? highlight : 1.0f;
                rsum += pixel.x * w;
                gsum += pixel.y * w;
                bsum += pixel.z * w;
                samples += w;
            }
        }
    }
    rsum /= samples;
    gsum /= samples;
    bsum /= samples;
    g_odata[y * imgw + x] = rgbToInt(rsum, gsum, bsum);
}
