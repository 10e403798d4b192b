//pass
//--blockDim=[16,8] --gridDim=[32,64]
//expect: verified

struct Ray {
    float3 o;
    float3 d;
};

struct Sphere {
    float3 c;
    float r;
    float3 color;
};

__constant__ Sphere spheres[8];

__device__ inline float3 add3(float3 a, float3 b) { return make_float3(a.x + b.x, a.y + b.y, a.z + b.z); }
__device__ inline float3 sub3(float3 a, float3 b) { return make_float3(a.x - b.x, a.y - b.y, a.z - b.z); }
__device__ inline float3 mul3(float3 a, float s) { return make_float3(a.x * s, a.y * s, a.z * s); }
__device__ inline float dot3(float3 a, float3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

__device__ bool intersect(const Ray &ray, const Sphere &s, float &t)
{
    float3 oc = sub3(ray.o, s.c);
    float b = dot3(oc, ray.d);
    float c = dot3(oc, oc) - s.r * s.r;
    float disc = b * b - c;
    if (disc < 0.0f) return false;
    t = -b - sqrtf(disc);
    return t > 0.0f;
}

// One primary ray per pixel, a fixed number of bounces, no recursion.
__global__ void render(uchar4 *pixels, unsigned int width, unsigned int height, int numSpheres)
{
    __requires(width == 512);
    __requires(height == 512);
    __requires(numSpheres <= 8);
    unsigned int x = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int y = blockIdx.y * blockDim.y + threadIdx.y;
    Ray ray;
    ray.o = make_float3(0.0f, 0.0f, -5.0f);
    ray.d = make_float3((x - width / 2.0f) / width, (y - height / 2.0f) / height, 1.0f);
    float3 col = make_float3(0.0f, 0.0f, 0.0f);
    float weight = 1.0f;

    for (int bounce = 0; bounce < 3; bounce++) {
        float tmin = 1e20f;
        int hit = -1;
        for (int i = 0; i < numSpheres; i++) {
            float t;
            if (intersect(ray, spheres[i], t) && t < tmin) {
                tmin = t;
                hit = i;
            }
        }
        if (hit < 0) break;
        float3 p = add3(ray.o, mul3(ray.d, tmin));
        float3 n = sub3(p, spheres[hit].c);
        col = add3(col, mul3(spheres[hit].color, weight));
        weight *= 0.5f;
        ray.o = p;
        ray.d = sub3(ray.d, mul3(n, 2.0f * dot3(ray.d, n)));
    }

    if (x < width && y < height)
        pixels[y * width + x] = make_uchar4((unsigned char)(255 * col.x), (unsigned char)(255 * col.y), (unsigned char)(255 * col.z), 255);
}
