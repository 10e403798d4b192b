//expect: verified

// The host helper takes the block shape as `const dim3 &`, as matrix-multiply
// drivers do. main passes a local it only reads, so nothing else can change the
// object while the helper runs: the launch has main's 16 x 16 threads, and the
// kernel's 16 x 16 tile is each thread's own.
#include <cuda_runtime.h>

__global__ void tile_copy(const float *in, float *out, int width)
{
    __shared__ float tile[16][16];
    int x = blockIdx.x * 16 + threadIdx.x;
    int y = blockIdx.y * 16 + threadIdx.y;
    tile[threadIdx.y][threadIdx.x] = in[y * width + x];
    __syncthreads();
    out[y * width + x] = tile[threadIdx.y][threadIdx.x] + tile[threadIdx.x][threadIdx.y];
}

static void run(const float *in, float *out, int width, const dim3 &threads)
{
    dim3 grid(width / threads.x, width / threads.y);
    tile_copy<<<grid, threads>>>(in, out, width);
}

int main()
{
    float *in, *out;
    cudaMalloc(&in, 256 * 256 * sizeof(float));
    cudaMalloc(&out, 256 * 256 * sizeof(float));
    dim3 threads(16, 16);
    run(in, out, 256, threads);
    cudaDeviceSynchronize();
    return 0;
}
