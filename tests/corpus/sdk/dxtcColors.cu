//pass
//--blockDim=64 --gridDim=128
//expect: verified

#include "cutil_math.h"

#define NUM_THREADS 64

typedef unsigned int uint;

__device__ float3 firstEigenVector(float *matrix)
{
    float3 v = make_float3(1.0f, 1.0f, 1.0f);
    for (int i = 0; i < 8; i++) {
        float x = v.x * matrix[0] + v.y * matrix[1] + v.z * matrix[2];
        float y = v.x * matrix[1] + v.y * matrix[3] + v.z * matrix[4];
        float z = v.x * matrix[2] + v.y * matrix[4] + v.z * matrix[5];
        float m = fmaxf(fmaxf(x, y), z);
        float iv = 1.0f / m;
        v = make_float3(x * iv, y * iv, z * iv);
    }
    return v;
}

// Loads one 4x4 block of RGBA pixels (a thread per pixel), sums colours in
// shared memory, and lets the first thread compute the principal axis.
__global__ void compress(const uint *image, uint2 *result, int blockOffset)
{
    __requires(blockOffset == 0);
    __shared__ float3 colors[16];
    __shared__ float3 sums[16];
    __shared__ float covariance[16 * 6];
    __shared__ float3 axis;

    const int idx = threadIdx.x;
    const int bid = blockIdx.x + blockOffset;

    if (idx < 16) {
        uint c = image[bid * 16 + idx];
        float3 color;
        color.x = ((c >> 0) & 0xFF) * (1.0f / 255.0f);
        color.y = ((c >> 8) & 0xFF) * (1.0f / 255.0f);
        color.z = ((c >> 16) & 0xFF) * (1.0f / 255.0f);
        colors[idx] = color;
        sums[idx] = color;
    }
    __syncthreads();

    if (idx < 16) {
        float3 diff = colors[idx] - sums[0] * (1.0f / 16.0f);
        covariance[6 * idx + 0] = diff.x * diff.x;
        covariance[6 * idx + 1] = diff.x * diff.y;
        covariance[6 * idx + 2] = diff.x * diff.z;
        covariance[6 * idx + 3] = diff.y * diff.y;
        covariance[6 * idx + 4] = diff.y * diff.z;
        covariance[6 * idx + 5] = diff.z * diff.z;
    }
    __syncthreads();

    if (idx == 0) {
        axis = firstEigenVector(covariance);
    }
    __syncthreads();

    if (idx == 0) {
        float d = dot(axis, colors[0]);
        uint2 r;
        r.x = __float_as_int(d);
        r.y = (uint)(length(axis) * 255.0f);
        result[bid] = r;
    }
}
