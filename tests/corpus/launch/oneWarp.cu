//expect: verified

// Race-free only because of its launch: a single block of exactly one warp. The
// lanes exchange values through `lanes[threadIdx.x % 32]` with a `__syncwarp()`
// between the writes and the reads, which orders the threads of one warp only. With
// `--launch symbolic` a second warp writes the same slots of `lanes` (and a second
// block the same elements of `out`).
#include <cuda_runtime.h>

__global__ void rotate_lanes(const int *in, int *out)
{
    __shared__ int lanes[32];
    unsigned lane = threadIdx.x % 32;
    lanes[lane] = in[lane] * 3;
    __syncwarp();
    out[lane] = lanes[(lane + 1) % 32];
}

int main()
{
    int *d_in, *d_out;
    cudaMalloc(&d_in, 32 * sizeof(int));
    cudaMalloc(&d_out, 32 * sizeof(int));
    rotate_lanes<<<1, 32>>>(d_in, d_out);
    cudaDeviceSynchronize();
    return 0;
}
