//expect: race

// Twin of oneWarp.cu: the launch has two warps. `__syncwarp()` does not order
// warp 0's writes of `lanes` with warp 1's, nor warp 1's reads with warp 0's
// writes, and both warps write `out[0..32)`.
#include <cuda_runtime.h>

__global__ void rotate_lanes(const int *in, int *out)
{
    __shared__ int lanes[32];
    unsigned lane = threadIdx.x % 32;
    lanes[lane] = in[lane] * 3;                 //~ race(lanes)
    __syncwarp();
    out[lane] = lanes[(lane + 1) % 32];         //~ race(lanes) race(out)
}

int main()
{
    const int warps = 2;
    int *d_in, *d_out;
    cudaMalloc(&d_in, 32 * sizeof(int));
    cudaMalloc(&d_out, 32 * sizeof(int));
    rotate_lanes<<<1, warps * 32>>>(d_in, d_out);
    cudaDeviceSynchronize();
    return 0;
}
