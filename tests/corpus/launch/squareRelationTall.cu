//expect: race
//expect-unfixable

// Twin of squareRelation.cu: `dim3 threads(bs, 2 * bs)` makes blocks twice as tall
// as they are wide, while the kernel steps `blockIdx.y` by the width: block row
// by + 1 starts in the middle of block row by, and both write those rows of `out`.
#include <cuda_runtime.h>

__global__ void mirror_blocks(const float *in, float *out, unsigned n)
{
    unsigned side = blockDim.x;
    unsigned col = blockIdx.x * side + threadIdx.x;
    unsigned row = blockIdx.y * side + threadIdx.y;
    if (row < n && col < n) {
        out[col * n + row] = 2.0f * in[row * n + col] + blockIdx.y;  //~ race(out)
    }
}

void mirror(const float *d_in, float *d_out, unsigned n, unsigned bs)
{
    dim3 threads(bs, 2 * bs);
    dim3 blocks((n + bs - 1) / bs, (n + 2 * bs - 1) / (2 * bs));
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
