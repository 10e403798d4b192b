//expect: race

// Twin of callerContexts.cu: the second caller asks for 256 threads per block. The
// kernel is checked once per context: the 128-thread context verifies, the
// 256-thread one races: threads t and t + 128 write the same slot of `row`, and
// neighbouring blocks the same elements of `out`.
#include <cuda_runtime.h>

__global__ void smooth_rows(const float *in, float *out)
{
    __shared__ float row[128];
    unsigned t = threadIdx.x;
    unsigned base = blockIdx.x * 128;
    row[t % 128] = in[base + t] * (float)(t + 1);               //~ race(row)
    __syncthreads();
    out[base + t] = 0.5f * (row[t % 128] + row[(t + 1) % 128]); //~ race(out)
}

void launch_rows(const float *d_in, float *d_out, int rows, int threads)
{
    smooth_rows<<<rows, threads>>>(d_in, d_out);
}

int main()
{
    float *d_in, *d_out;
    cudaMalloc(&d_in, 64 * 256 * sizeof(float));
    cudaMalloc(&d_out, 64 * 256 * sizeof(float));
    launch_rows(d_in, d_out, 64, 128);
    launch_rows(d_in, d_out, 32, 256);
    cudaDeviceSynchronize();
    return 0;
}
