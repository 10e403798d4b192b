//expect: verified

// Type template arguments deduced from the kernel's arguments. `spread` gives each
// thread a 4-byte slot of a shared staging buffer and copies its element's bytes
// there: right only for elements of at most 4 bytes. It is launched with `float`s
// (a local), with `short`s (through a cast), with `unsigned char`s (a global), and
// from a host template whose `T` is `float`. `saxpy_params` takes a struct of the
// file by value, so its fields are known only with the struct as `P`; `fill` takes
// its value by value, `T` from a `float` literal agreeing with the pointer.
#include <cuda_runtime.h>

template <typename T>
__global__ void spread(const T *in, unsigned char *out)
{
    __shared__ unsigned char staging[4 * 256];
    const unsigned char *bytes = (const unsigned char *)&in[blockIdx.x * blockDim.x + threadIdx.x];
    for (int b = 0; b < sizeof(T); b++)
        staging[threadIdx.x * 4 + b] = bytes[b];
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = staging[((threadIdx.x + 1) % blockDim.x) * 4];
}

struct SaxpyArgs {
    float a;
    const float *x;
    float *y;
    int n;
};

template <typename P>
__global__ void saxpy_params(P p)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < p.n)
        p.y[i] = p.a * p.x[i] + p.y[i];
}

template <typename T>
__global__ void fill(T *data, T value, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        data[i] = value;
}

unsigned char *g_pixels;

template <typename T>
void spread_typed(T *d, unsigned char *out, int n)
{
    spread<<<n / 256, 256>>>(d, out);
}

void run(void *raw, unsigned char *out, SaxpyArgs args, int n)
{
    float *d_f;
    cudaMalloc(&d_f, n * sizeof(float));
    spread<<<n / 256, 256>>>(d_f, out);
    spread<<<n / 128, 128>>>((short *)raw, out);
    spread<<<n / 64, 64>>>(g_pixels, out);
    spread_typed<float>(d_f, out, n);
    saxpy_params<<<(args.n + 255) / 256, 256>>>(args);
    fill<<<(n + 255) / 256, 256>>>(d_f, 2.5f, n);
}
