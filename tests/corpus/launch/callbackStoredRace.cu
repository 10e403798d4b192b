//expect: race

// A launcher handed to a driver that keeps it (in a global) and calls it later through
// that copy: the calls are not read, so `stage` is checked for any launch, and 128
// threads (which `later` really passes) race on `buf[t % 64]`.
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

typedef void (*Launcher)(float *, const float *, int, int);
static Launcher pending;

void launch_stage(float *out, const float *in, int n, int threads)
{
    stage<<<(n + threads - 1) / threads, threads>>>(out, in, n);
}

void defer(Launcher l, float *out, const float *in, int n)
{
    pending = l;
    l(out, in, n, 64);
}

void later(float *out, const float *in, int n)
{
    pending(out, in, n, 128);
}

int main()
{
    int n = 4096;
    float *d_in, *d_out;
    cudaMalloc(&d_in, n * sizeof(float));
    cudaMalloc(&d_out, n * sizeof(float));
    defer(launch_stage, d_out, d_in, n);
    later(d_out, d_in, n);
    return 0;
}
