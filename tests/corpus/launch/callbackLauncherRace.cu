//expect: race

// The twin of callbackLauncher.cu: the driver calls the launcher it is handed twice,
// the second time with 128 threads, for which threads t and t + 64 share the slot
// `buf[t % 64]`.
#include <cuda_runtime.h>

__global__ void stage(float *out, const float *in, int n)
{
    __shared__ float buf[64];
    unsigned t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    buf[t % 64] = i < n ? in[i] : 0.0f; //~ race(buf)
    __syncthreads();
    if (i < n)
        out[i] = buf[(t + 1) % 64] - buf[t % 64];
}

typedef void (*StageLauncher)(float *, const float *, int, int);

void launch_stage(float *out, const float *in, int n, int threads)
{
    stage<<<(n + threads - 1) / threads, threads>>>(out, in, n);
}

void run_pass(float *out, const float *in, int n, StageLauncher launch, const int threads)
{
    launch(out, in, n, threads);
    launch(out, in, n, 2 * threads);
}

int main()
{
    int n = 4096;
    float *d_in, *d_out;
    cudaMalloc(&d_in, n * sizeof(float));
    cudaMalloc(&d_out, n * sizeof(float));
    run_pass(d_out, d_in, n, launch_stage, 64);
    return 0;
}
