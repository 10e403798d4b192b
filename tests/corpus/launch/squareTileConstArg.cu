//expect: verified

// Race-free only because of its launch: the host launches `transpose_tile<16>` with
// square 16 x 16 blocks (`dim3 threads(bs, bs)`, `bs` a constant), which is what the
// 16 x 17 shared tile indexed `tile[ty][tx]` assumes. With `--launch symbolic` a
// block wider than 16 threads writes past a row of `tile` into the next one, and
// the blocks' slices of `out` overlap.
//
// squareTile.cu with the kernel instantiated as `transpose_tile<bs>`, `bs` a
// `const int` of the host function: the host reader evaluates the template argument
// as it evaluates the block size, and checks `transpose_tile<16>`.
#include <cuda_runtime.h>

template <int TILE>
__global__ void transpose_tile(const float *in, float *out, int w, int h)
{
    __shared__ float tile[TILE][TILE + 1];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int x = blockIdx.x * TILE + tx;
    int y = blockIdx.y * TILE + ty;
    if (x < w && y < h) {
        tile[ty][tx] = in[y * w + x];
    }
    __syncthreads();
    int ox = blockIdx.y * TILE + tx;
    int oy = blockIdx.x * TILE + ty;
    if (ox < h && oy < w) {
        out[oy * h + ox] = tile[tx][ty];
    }
}

static int ceil_div(int a, int b) { return (a + b - 1) / b; }

void transpose(const float *d_in, float *d_out, int w, int h)
{
    const int bs = 16;
    dim3 threads(bs, bs);
    dim3 grid(ceil_div(w, bs), ceil_div(h, bs));
    transpose_tile<bs><<<grid, threads>>>(d_in, d_out, w, h);
}

int main(int argc, char **argv)
{
    int w = argc > 2 ? atoi(argv[1]) : 1024;
    int h = argc > 2 ? atoi(argv[2]) : 768;
    float *d_in, *d_out;
    cudaMalloc(&d_in, w * h * sizeof(float));
    cudaMalloc(&d_out, w * h * sizeof(float));
    transpose(d_in, d_out, w, h);
    cudaDeviceSynchronize();
    return 0;
}
