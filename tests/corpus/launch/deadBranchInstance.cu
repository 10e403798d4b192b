//expect: verified

// The host picks the instance by the block size, as matrix-multiply drivers do:
// `tile_sum<16>` for 16 x 16 blocks, `tile_sum<32>` otherwise. main asks for 32, so
// the `<16>` launch is made in no caller context; it is still checked, for what
// holds whenever it is made (block_size == 16, so 16 x 16 threads), and verifies.
#include <cuda_runtime.h>

template <int TILE>
__global__ void tile_sum(const float *in, float *out, int width)
{
    __shared__ float tile[TILE][TILE];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int x = blockIdx.x * TILE + tx;
    int y = blockIdx.y * TILE + ty;
    tile[ty][tx] = in[y * width + x];
    __syncthreads();
    if (tx == 0) {
        float s = 0.0f;
        for (int k = 0; k < TILE; ++k) {
            s += tile[ty][k];
        }
        out[y * (width / TILE) + blockIdx.x] = s;
    }
}

static void run(const float *in, float *out, int width, int block_size)
{
    dim3 threads(block_size, block_size);
    dim3 grid(width / block_size, width / block_size);
    if (block_size == 16) {
        tile_sum<16><<<grid, threads>>>(in, out, width);
    } else {
        tile_sum<32><<<grid, threads>>>(in, out, width);
    }
}

int main()
{
    float *in, *out;
    cudaMalloc(&in, 1024 * 1024 * sizeof(float));
    cudaMalloc(&out, 1024 * 32 * sizeof(float));
    run(in, out, 1024, 32);
    cudaDeviceSynchronize();
    return 0;
}
