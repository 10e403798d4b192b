//expect: verified

// Race-free only because of its launches: `launch_rows` is called with 128 and 64
// threads per block, and for both the kernel's `row[t % 128]` and
// `out[blockIdx.x * 128 + t]` are one thread's own. The one launch line gives two
// launch contexts, so the kernel is checked twice, once per context, each reported
// under its own name. With `--launch symbolic` blocks of more than 128 threads
// race.
#include <cuda_runtime.h>

__global__ void smooth_rows(const float *in, float *out)
{
    __shared__ float row[128];
    unsigned t = threadIdx.x;
    unsigned base = blockIdx.x * 128;
    row[t % 128] = in[base + t] * (float)(t + 1);
    __syncthreads();
    out[base + t] = 0.5f * (row[t % 128] + row[(t + 1) % 128]);
}

void launch_rows(const float *d_in, float *d_out, int rows, int threads)
{
    smooth_rows<<<rows, threads>>>(d_in, d_out);
}

int main()
{
    float *d_in, *d_out;
    cudaMalloc(&d_in, 64 * 128 * sizeof(float));
    cudaMalloc(&d_out, 64 * 128 * sizeof(float));
    launch_rows(d_in, d_out, 64, 128);
    launch_rows(d_in, d_out, 32, 64);
    cudaDeviceSynchronize();
    return 0;
}
