//--blockDim=[8,8] --gridDim=[80,60]
// Non-local means denoising, the SDK imageDenoising sample's NLM2 kernel (640 x 480
// image): the weight of each window offset depends only on the block, so the block
// computes the 8 x 8 weights once, one per thread, into shared memory; after a barrier
// every thread filters its own pixel with all of them.

#define WIN_R 3
#define BLK_R 3
#define WIN_AREA ((2 * WIN_R + 1) * (2 * WIN_R + 1))
#define INV_WIN_AREA (1.0f / (float)WIN_AREA)
#define WEIGHT_CUT 0.10f
#define LERP_CUT 0.10f
#define BDX 8
#define BDY 8

typedef struct {
    unsigned char r, g, b, a;
} Pixel;

texture<uchar4, 2, cudaReadModeNormalizedFloat> image;

__device__ float colorDist2(float4 p, float4 q)
{
    return (q.x - p.x) * (q.x - p.x) + (q.y - p.y) * (q.y - p.y) + (q.z - p.z) * (q.z - p.z);
}

__device__ float mix(float a, float b, float t)
{
    return a + (b - a) * t;
}

__device__ Pixel toPixel(float r, float g, float b, float a)
{
    Pixel p;
    p.r = (unsigned char)(r * 255.0f);
    p.g = (unsigned char)(g * 255.0f);
    p.b = (unsigned char)(b * 255.0f);
    p.a = (unsigned char)(a * 255.0f);
    return p;
}

__global__ void NLM2(Pixel *dst, int imageW, int imageH, float noise, float lerpC)
{
    __requires(imageW == 640);
    __requires(imageH == 480);

    __shared__ float weights[BDX * BDY];

    const int px = blockDim.x * blockIdx.x + threadIdx.x;
    const int py = blockDim.y * blockIdx.y + threadIdx.y;
    // texel centres
    const float x = (float)px + 0.5f;
    const float y = (float)py + 0.5f;
    // centre of the block's window
    const float cx = blockDim.x * blockIdx.x + WIN_R + 1.0f;
    const float cy = blockDim.x * blockIdx.y + WIN_R + 1.0f;

    if (px < imageW && py < imageH) {
        // this thread's offset: colour distance between the two neighbourhoods ...
        float w = 0;
        for (float dy = -BLK_R; dy <= BLK_R; dy++)
            for (float dx = -BLK_R; dx <= BLK_R; dx++)
                w += colorDist2(tex2D(image, cx + dx, cy + dy), tex2D(image, x + dx, y + dy));

        // ... and geometric distance of the offset from the window centre
        float g = (threadIdx.x - WIN_R) * (threadIdx.x - WIN_R) + (threadIdx.y - WIN_R) * (threadIdx.y - WIN_R);
        w = __expf(-(w * noise + g * INV_WIN_AREA));

        weights[threadIdx.y * BDX + threadIdx.x] = w;
        __syncthreads();

        float above = 0;
        float total = 0;
        float3 acc = {0, 0, 0};
        int k = 0;
        for (float dy = -WIN_R; dy <= WIN_R + 1; dy++)
            for (float dx = -WIN_R; dx <= WIN_R + 1; dx++) {
                float wk = weights[k++];
                float4 c = tex2D(image, x + dx, y + dy);
                acc.x += c.x * wk;
                acc.y += c.y * wk;
                acc.z += c.z * wk;
                total += wk;
                above += (wk > WEIGHT_CUT) ? INV_WIN_AREA : 0;
            }

        total = 1.0f / total;
        acc.x *= total;
        acc.y *= total;
        acc.z *= total;

        // lean towards the filtered colour where enough weights were significant
        float t = (above > LERP_CUT) ? lerpC : 1.0f - lerpC;
        float4 orig = tex2D(image, x, y);
        acc.x = mix(acc.x, orig.x, t);
        acc.y = mix(acc.y, orig.y, t);
        acc.z = mix(acc.z, orig.z, t);
        dst[imageW * py + px] = toPixel(acc.x, acc.y, acc.z, 0);
    }
}
