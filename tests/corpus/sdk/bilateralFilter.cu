//pass
//--blockDim=[16,16] --gridDim=[32,32]
//expect: verified

__constant__ float cGaussian[64];
texture<uchar4, 2, cudaReadModeNormalizedFloat> rgbaTex;

__device__ float euclideanLen(float4 a, float4 b, float d)
{
    float mod = (b.x - a.x) * (b.x - a.x) + (b.y - a.y) * (b.y - a.y) + (b.z - a.z) * (b.z - a.z);
    return __expf(-mod / (2.f * d * d));
}

__device__ unsigned int rgbaFloatToInt(float4 rgba)
{
    rgba.x = __saturatef(fabs(rgba.x));
    rgba.y = __saturatef(fabs(rgba.y));
    rgba.z = __saturatef(fabs(rgba.z));
    rgba.w = __saturatef(fabs(rgba.w));
    return ((unsigned int)(rgba.w * 255.0f) << 24) | ((unsigned int)(rgba.z * 255.0f) << 16) |
           ((unsigned int)(rgba.y * 255.0f) << 8) | (unsigned int)(rgba.x * 255.0f);
}

// Edge-preserving blur: weights combine spatial distance (constant table) and
// colour distance to the centre pixel.
__global__ void d_bilateral_filter(unsigned int *od, int w, int h, float e_d, int r)
{
    __requires(w == 512);
    __requires(h == 512);
    __requires(r <= 5);
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;

    float sum = 0.0f;
    float4 t = {0.f, 0.f, 0.f, 0.f};
    float4 center = tex2D(rgbaTex, x, y);
    for (int i = -r; i <= r; i++) {
        for (int j = -r; j <= r; j++) {
            float4 curPix = tex2D(rgbaTex, x + j, y + i);
            float factor = cGaussian[i + r] * cGaussian[j + r] * euclideanLen(curPix, center, e_d);
            t.x += factor * curPix.x;
            t.y += factor * curPix.y;
            t.z += factor * curPix.z;
            t.w += factor * curPix.w;
            sum += factor;
        }
    }
    t.x /= sum;
    t.y /= sum;
    t.z /= sum;
    t.w /= sum;
    od[y * w + x] = rgbaFloatToInt(t);
}
