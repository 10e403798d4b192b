//expect: race

// The launcher takes its block size by reference and rounds it up; the driver's later
// launch of `stage` reads the size the callback changed (128), so the driver's `bs` is
// not the 64 it was initialised with, and threads t and t + 64 share `buf[t % 64]`.
#include <cuda_runtime.h>

__global__ void stage(float *out, const float *in, int n)
{
    __shared__ float buf[64];
    unsigned t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    buf[t % 64] = i < n ? in[i] : 0.0f; //~ race(buf)
    __syncthreads();
    if (i < n)
        out[i] = buf[(t + 1) % 64];
}

void round_up(int &bs, int n)
{
    if (n > 1000)
        bs = 128;
}

void tune(void (*adjust)(int &, int), float *out, const float *in, int n)
{
    int bs = 64;
    adjust(bs, n);
    stage<<<(n + bs - 1) / bs, bs>>>(out, in, n);
}

int main()
{
    int n = 4096;
    float *d_in, *d_out;
    cudaMalloc(&d_in, n * sizeof(float));
    cudaMalloc(&d_out, n * sizeof(float));
    tune(round_up, d_out, d_in, n);
    return 0;
}
