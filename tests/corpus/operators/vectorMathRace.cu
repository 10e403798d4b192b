//expect: race

// Twin of vectorMath.cu without the barrier: the neighbour's point is read while it
// is written (every lane of it).
#include <cuda_runtime.h>

inline __host__ __device__ float3 operator+(float3 a, float3 b) { return make_float3(a.x + b.x, a.y + b.y, a.z + b.z); }
inline __host__ __device__ float3 operator-(float3 a) { return make_float3(-a.x, -a.y, -a.z); }
inline __host__ __device__ float3 operator*(float3 a, float s) { return make_float3(a.x * s, a.y * s, a.z * s); }
inline __host__ __device__ float3 operator*(float s, float3 a) { return a * s; }
inline __host__ __device__ float3 &operator+=(float3 &a, float3 b) { a.x += b.x; a.y += b.y; a.z += b.z; return a; }
inline __host__ __device__ float3 fminf(float3 a, float3 b) { return make_float3(fminf(a.x, b.x), fminf(a.y, b.y), fminf(a.z, b.z)); }
inline __host__ __device__ float dot(float3 a, float3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

__global__ void blendPoints(float3 *out, const float3 *p, const float3 *q, int n)
{
    __shared__ float3 tile[128];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    float3 v = make_float3(0.0f, 0.0f, 0.0f);
    if (i < n) {
        v = fminf(p[i], q[i]) + 0.5f * p[i];
        v += -q[i];
    }
    tile[t] = v;                                //~ race(tile)
    float3 w = tile[(t + 1) % 128];             //~ race(tile)
    if (i < n) out[i] = w * dot(w, w);
}

void blend(float3 *o, const float3 *p, const float3 *q, int n)
{
    blendPoints<<<(n + 127) / 128, 128>>>(o, p, q, n);
}
