//pass
//--blockDim=64 --gridDim=8
//expect: verified

typedef unsigned int uint;

__device__ float4 rgbaIntToFloat(uint c)
{
    float4 rgba;
    rgba.x = (c & 0xff) * 0.003921568627f;
    rgba.y = ((c >> 8) & 0xff) * 0.003921568627f;
    rgba.z = ((c >> 16) & 0xff) * 0.003921568627f;
    rgba.w = ((c >> 24) & 0xff) * 0.003921568627f;
    return rgba;
}

__device__ uint rgbaFloatToInt(float4 rgba)
{
    rgba.x = __saturatef(rgba.x);
    rgba.y = __saturatef(rgba.y);
    rgba.z = __saturatef(rgba.z);
    rgba.w = __saturatef(rgba.w);
    return (uint(rgba.w * 255.0f) << 24) | (uint(rgba.z * 255.0f) << 16) | (uint(rgba.y * 255.0f) << 8) | uint(rgba.x * 255.0f);
}

// IIR Gaussian along columns: forward and reverse passes, one column per thread.
__global__ void d_recursiveGaussian_rgba(uint *id, uint *od, int w, int h, float a0, float a1, float a2, float a3,
                                         float b1, float b2, float coefp, float coefn)
{
    __requires(w == 512);
    __requires(h == 512);
    unsigned int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= w) return;
    id += x;
    od += x;

    float4 xp = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    float4 yp = xp, yb = xp;
    for (int y = 0; y < h; y++) {
        float4 xc = rgbaIntToFloat(*id);
        float4 yc;
        yc.x = a0 * xc.x + a1 * xp.x - b1 * yp.x - b2 * yb.x;
        yc.y = a0 * xc.y + a1 * xp.y - b1 * yp.y - b2 * yb.y;
        yc.z = a0 * xc.z + a1 * xp.z - b1 * yp.z - b2 * yb.z;
        yc.w = a0 * xc.w + a1 * xp.w - b1 * yp.w - b2 * yb.w;
        *od = rgbaFloatToInt(yc);
        id += w;
        od += w;
        xp = xc;
        yb = yp;
        yp = yc;
    }

    id -= w;
    od -= w;
    float4 xn = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    float4 ya = xn;
    for (int y = h - 1; y >= 0; y--) {
        float4 xc = rgbaIntToFloat(*id);
        float4 yc;
        yc.x = a2 * xc.x + a3 * xn.x - b1 * ya.x;
        yc.y = a2 * xc.y + a3 * xn.y - b1 * ya.y;
        yc.z = a2 * xc.z + a3 * xn.z - b1 * ya.z;
        yc.w = a2 * xc.w + a3 * xn.w - b1 * ya.w;
        xn = xc;
        ya = yc;
        float4 o = rgbaIntToFloat(*od);
        o.x += yc.x;
        o.y += yc.y;
        o.z += yc.z;
        o.w += yc.w;
        *od = rgbaFloatToInt(o);
        id -= w;
        od -= w;
    }
}
