//pass
//--blockDim=[16,16] --gridDim=[32,32]
//expect: verified

typedef unsigned int uint;

typedef struct {
    float4 m[3];
} float3x4;

__constant__ float3x4 c_invViewMatrix;

texture<unsigned char, 3, cudaReadModeNormalizedFloat> tex;
texture<float4, 1, cudaReadModeElementType> transferTex;

struct Ray {
    float3 o;
    float3 d;
};

__device__ int intersectBox(Ray r, float3 boxmin, float3 boxmax, float *tnear, float *tfar)
{
    float3 invR = make_float3(1.0f / r.d.x, 1.0f / r.d.y, 1.0f / r.d.z);
    float tbx = invR.x * (boxmin.x - r.o.x), ttx = invR.x * (boxmax.x - r.o.x);
    float tby = invR.y * (boxmin.y - r.o.y), tty = invR.y * (boxmax.y - r.o.y);
    float largest = fmaxf(fminf(tbx, ttx), fminf(tby, tty));
    float smallest = fminf(fmaxf(tbx, ttx), fmaxf(tby, tty));
    *tnear = largest;
    *tfar = smallest;
    return smallest > largest;
}

__device__ float3 mul(const float3x4 &M, const float3 &v)
{
    float3 r;
    r.x = M.m[0].x * v.x + M.m[0].y * v.y + M.m[0].z * v.z;
    r.y = M.m[1].x * v.x + M.m[1].y * v.y + M.m[1].z * v.z;
    r.z = M.m[2].x * v.x + M.m[2].y * v.y + M.m[2].z * v.z;
    return r;
}

// Ray marching through a 3-D texture with front-to-back compositing and an
// early exit once the ray is opaque.
__global__ void d_render(uint *d_output, uint imageW, uint imageH, float density, float brightness)
{
    __requires(imageW == 512);
    __requires(imageH == 512);
    const int maxSteps = 500;
    const float tstep = 0.01f;
    const float3 boxMin = make_float3(-1.0f, -1.0f, -1.0f);
    const float3 boxMax = make_float3(1.0f, 1.0f, 1.0f);

    uint x = blockIdx.x * blockDim.x + threadIdx.x;
    uint y = blockIdx.y * blockDim.y + threadIdx.y;
    if ((x >= imageW) || (y >= imageH)) return;

    float u = (x / (float)imageW) * 2.0f - 1.0f;
    float v = (y / (float)imageH) * 2.0f - 1.0f;

    Ray eyeRay;
    eyeRay.o = make_float3(c_invViewMatrix.m[0].w, c_invViewMatrix.m[1].w, c_invViewMatrix.m[2].w);
    eyeRay.d = mul(c_invViewMatrix, make_float3(u, v, -2.0f));

    float tnear, tfar;
    int hit = intersectBox(eyeRay, boxMin, boxMax, &tnear, &tfar);
    if (!hit) return;
    if (tnear < 0.0f) tnear = 0.0f;

    float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    float t = tnear;
    for (int i = 0; i < maxSteps; i++) {
        float px = eyeRay.o.x + eyeRay.d.x * t;
        float py = eyeRay.o.y + eyeRay.d.y * t;
        float pz = eyeRay.o.z + eyeRay.d.z * t;
        float sample = tex3D(tex, px * 0.5f + 0.5f, py * 0.5f + 0.5f, pz * 0.5f + 0.5f);
        float4 col = tex1D(transferTex, sample);
        col.w *= density;
        sum.x += col.x * col.w * (1.0f - sum.w);
        sum.y += col.y * col.w * (1.0f - sum.w);
        sum.z += col.z * col.w * (1.0f - sum.w);
        sum.w += col.w * (1.0f - sum.w);
        if (sum.w > 0.95f) break;
        t += tstep;
        if (t > tfar) break;
    }
    uint r = __float2uint_rn(__saturatef(sum.x * brightness) * 255.0f);
    d_output[y * imageW + x] = r | (__float2uint_rn(__saturatef(sum.w) * 255.0f) << 24);
}
