//pass
//--blockDim=64 --gridDim=8 -DRADIUS=4 -DUSE_CLAMP
//expect: verified

#include "common.h"

#ifndef RADIUS
#error RADIUS must be given on the command line
#endif

// Box filter over the columns of an image: each thread owns one column and
// slides a window of 2*RADIUS+1 rows down it with a running sum.
__global__ void d_boxfilter_y(const float *id, float *od, int w, int h)
{
    __requires(w == 512);
    __requires(h == 512);
    uint x = UMUL(blockIdx.x, blockDim.x) + threadIdx.x;
    const float *in = &id[x];
    float *out = &od[x];
    float scale = 1.0f / (float)((RADIUS << 1) + 1);
    float t;
#ifdef USE_CLAMP
    t = in[0] * RADIUS;
#else
    t = 0.0f;
#endif
    for (int y = 0; y < (RADIUS + 1); y++) t += in[y * w];
    out[0] = t * scale;
    for (int y = 1; y < (RADIUS + 1); y++) {
        t += in[(y + RADIUS) * w];
        t -= in[0];
        out[y * w] = t * scale;
    }
    for (int y = RADIUS + 1; y < h - RADIUS; y++) {
        t += in[(y + RADIUS) * w];
        t -= in[((y - RADIUS) * w) - w];
        out[y * w] = t * scale;
    }
    for (int y = h - RADIUS; y < h; y++) {
        t += in[(h - 1) * w];
        t -= in[((y - RADIUS) * w) - w];
        out[y * w] = t * scale;
    }
}
