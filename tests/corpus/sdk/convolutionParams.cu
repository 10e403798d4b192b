//pass
//--blockDim=[16,16] --gridDim=[16,16]
//expect: verified

#include <common.h>

#define KSIZE 5

// The filter travels in a struct passed by value; each block stages its tile and
// a one-pixel-wide apron through a local helper struct describing the window.
struct Filter {
    float taps[KSIZE * KSIZE];
    int radius;
    float gain;
};

__global__ void convolve2D(float *out, const float *in, Filter f, int width, int height)
{
    __requires(width == 256);
    __requires(height == 256);
    __requires(f.radius == 2);
    struct Window {
        int x0, y0;
        int pitch;
    } win;
    __shared__ float tile[16 + 4][16 + 4];

    win.x0 = IMUL(blockIdx.x, blockDim.x);
    win.y0 = IMUL(blockIdx.y, blockDim.y);
    win.pitch = width;
    int tx = threadIdx.x, ty = threadIdx.y;
    int gx = win.x0 + tx, gy = win.y0 + ty;

    for (int dy = ty; dy < 16 + 4; dy += blockDim.y)
        for (int dx = tx; dx < 16 + 4; dx += blockDim.x) {
            int sx = min(max(win.x0 + dx - 2, 0), width - 1);
            int sy = min(max(win.y0 + dy - 2, 0), height - 1);
            tile[dy][dx] = in[sy * win.pitch + sx];
        }
    __syncthreads();

    float acc = 0.0f;
    for (int j = -f.radius; j <= f.radius; j++)
        for (int i = -f.radius; i <= f.radius; i++)
            acc += f.taps[(j + 2) * KSIZE + (i + 2)] * tile[ty + 2 + j][tx + 2 + i];
    out[gy * win.pitch + gx] = f.gain * acc;
}
