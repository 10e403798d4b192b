//expect: verified

// Bundles staged whole in dynamic shared memory: `s_w[i] = load(...)` copies a struct
// with a member array into shared memory (one write per lane), and after the barrier
// each thread reads whole bundles that other threads wrote.
#include <cuda_runtime.h>

template <class T>
struct Quad {
    static constexpr int width = 16 / sizeof(T);
    T v[width];
    __device__ T &operator[](int i) { return v[i]; }
};

using quadf = Quad<float>;

__device__ quadf load_quad(const float *p)
{
    quadf q;
    for (int i = 0; i < quadf::width; i++) q[i] = p[i];
    return q;
}

__global__ void scaleRows(float *out, const float *w, const float *in, int C)
{
    extern __shared__ char smem[];
    quadf *s_w = reinterpret_cast<quadf *>(smem);
    for (int c = threadIdx.x * quadf::width; c < C; c += blockDim.x * quadf::width) {
        s_w[c / quadf::width] = load_quad(w + c);
    }
    __syncthreads();
    const float *row = in + blockIdx.x * C;
    float *dst = out + blockIdx.x * C;
    for (int c = threadIdx.x * quadf::width; c < C; c += blockDim.x * quadf::width) {
        quadf wq = s_w[(C - quadf::width - c) / quadf::width];
        for (int i = 0; i < quadf::width; i++) dst[c + i] = row[c + i] * wq[i];
    }
}

void scale(float *o, const float *w, const float *in)
{
    const int C = 1024;
    scaleRows<<<64, 128, C * sizeof(float)>>>(o, w, in, C);
}
