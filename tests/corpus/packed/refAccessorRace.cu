//expect: race

// Twin of refAccessor.cu without the barrier: the write through the reference `acc`
// (the last column of the thread's row) races with the neighbour's read of it through
// `m.at`. A call returning a reference was a copy before, so such writes were lost.
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
    acc = 0.0f;                                         //~ race(buf)
    for (int c = 0; c < 32; c++) acc += m.at(t, c);     //~ race(buf)
    out[t] = m.at((t + 1) % 32, 32);                    //~ race(buf)
}

void run(float *o, const float *in) { rowSums<<<1, 32>>>(o, in); }
