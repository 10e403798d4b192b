//expect: race

// Twin of constReferenceDims.cu whose helper also gets a pointer to the same
// `dim3` and widens it before the launch: the `const &` does not keep the object
// from changing through the pointer, so the launch has 32 x 16 threads.
#include <cuda_runtime.h>

__global__ void tile_copy(const float *in, float *out, int width)
{
    __shared__ float tile[16][16];
    int x = blockIdx.x * 16 + threadIdx.x;
    int y = blockIdx.y * 16 + threadIdx.y;
    tile[threadIdx.y][threadIdx.x] = in[y * width + x];  //~ race(tile)
    __syncthreads();
    out[y * width + x] = tile[threadIdx.y][threadIdx.x] + tile[threadIdx.x][threadIdx.y];  //~ race(out)
}

static void run(const float *in, float *out, int width, const dim3 &threads, dim3 *shape)
{
    shape->x = 32;
    dim3 grid(width / threads.x, width / threads.y);
    tile_copy<<<grid, threads>>>(in, out, width);
}

int main()
{
    float *in, *out;
    cudaMalloc(&in, 256 * 256 * sizeof(float));
    cudaMalloc(&out, 256 * 256 * sizeof(float));
    dim3 threads(16, 16);
    run(in, out, 256, threads, &threads);
    cudaDeviceSynchronize();
    return 0;
}
