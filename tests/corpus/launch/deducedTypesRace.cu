//expect: race

// deducedTypes.cu launched with `double`s: `spread<double>` copies 8 bytes into a
// 4-byte slot, over its neighbour's (the `float` launch still verifies).
// `fill_row`, deduced as `fill_row<double>` from a local and a `double` literal,
// has every thread of a block write its own value into the block's whole row.
#include <cuda_runtime.h>

template <typename T>
__global__ void spread(const T *in, unsigned char *out)
{
    __shared__ unsigned char staging[4 * 256];
    const unsigned char *bytes = (const unsigned char *)&in[blockIdx.x * blockDim.x + threadIdx.x];
    for (int b = 0; b < sizeof(T); b++)
        staging[threadIdx.x * 4 + b] = bytes[b]; //~ race(staging)
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = staging[((threadIdx.x + 1) % blockDim.x) * 4];
}

template <typename T>
__global__ void fill_row(T *row, T value, int width)
{
    for (int c = 0; c < width; c++)
        row[blockIdx.x * width + c] = value + threadIdx.x; //~ race(row)
}

void run(unsigned char *out, int n)
{
    float *d_f;
    double *d_d;
    cudaMalloc(&d_f, n * sizeof(float));
    cudaMalloc(&d_d, n * sizeof(double));
    spread<<<n / 256, 256>>>(d_f, out);
    spread<<<n / 256, 256>>>(d_d, out);
    fill_row<<<n / 64, 64>>>(d_d, 1.0, 64);
}
