//expect: race

// Twin of squareTile.cu: the host launches 32 x 16 blocks for a 16-wide tile.
// Thread (tx, ty) with tx >= 17 writes `tile[ty][tx]`, which is a cell of row
// ty + 1, and the blocks' columns of `out` overlap.
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
        tile[ty][tx] = in[y * w + x];          //~ race(tile)
    }
    __syncthreads();
    int ox = blockIdx.y * TILE + tx;
    int oy = blockIdx.x * TILE + ty;
    if (ox < h && oy < w) {
        out[oy * h + ox] = tile[tx][ty];        //~ race(out)
    }
}

static int ceil_div(int a, int b) { return (a + b - 1) / b; }

void transpose(const float *d_in, float *d_out, int w, int h)
{
    const int bs = 16;
    dim3 threads(2 * bs, bs);
    dim3 grid(ceil_div(w, bs), ceil_div(h, bs));
    transpose_tile<16><<<grid, threads>>>(d_in, d_out, w, h);
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
