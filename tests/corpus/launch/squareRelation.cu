//expect: verified

// Race-free only because of its launch: the block side `bs` is read at run time,
// but `dim3 threads(bs, bs)` makes every block square (blockDim.x == blockDim.y),
// and the kernel uses `blockDim.x` as the side in both directions. With
// `--launch symbolic` a block taller than it is wide makes the rows of two blocks
// overlap in `out`.
#include <cuda_runtime.h>

__global__ void mirror_blocks(const float *in, float *out, unsigned n)
{
    unsigned side = blockDim.x;
    unsigned col = blockIdx.x * side + threadIdx.x;
    unsigned row = blockIdx.y * side + threadIdx.y;
    if (row < n && col < n) {
        out[col * n + row] = 2.0f * in[row * n + col];
    }
}

void mirror(const float *d_in, float *d_out, unsigned n, unsigned bs)
{
    dim3 threads(bs, bs);
    dim3 blocks((n + bs - 1) / bs, (n + bs - 1) / bs);
    mirror_blocks<<<blocks, threads>>>(d_in, d_out, n);
}

int main(int argc, char **argv)
{
    unsigned n = 2048;
    unsigned bs = argc > 1 ? atoi(argv[1]) : 16;
    float *d_in, *d_out;
    cudaMalloc(&d_in, n * n * sizeof(float));
    cudaMalloc(&d_out, n * n * sizeof(float));
    mirror(d_in, d_out, n, bs);
    cudaDeviceSynchronize();
    return 0;
}
