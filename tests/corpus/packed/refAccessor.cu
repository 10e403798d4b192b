//expect: verified

// Accessors that return references: a free function `cell(a, i)` and a matrix
// class's `operator()`-style method `at(r, c)`. Writes through the returned reference
// (`cell(...) = v`, `float &r = m.at(...); r += ...`) land where it points: each thread
// writes its own row, and after the barrier reads its neighbour's.
#include <cuda_runtime.h>

__device__ float &cell(float *a, int i) { return a[i]; }

struct Tile {
    float *base;
    int pitch;
    __device__ float &at(int r, int c) { return base[r * pitch + c]; }
};

__global__ void rowSums(float *out, const float *in)
{
    __shared__ float buf[32 * 33];
    Tile m{buf, 33};
    int t = threadIdx.x;
    for (int c = 0; c < 32; c++) {
        cell(buf, t * 33 + c) = in[t * 32 + c];
    }
    float &acc = m.at(t, 32);
    acc = 0.0f;
    for (int c = 0; c < 32; c++) acc += m.at(t, c);
    __syncthreads();
    out[t] = m.at((t + 1) % 32, 32);
}

void run(float *o, const float *in) { rowSums<<<1, 32>>>(o, in); }
