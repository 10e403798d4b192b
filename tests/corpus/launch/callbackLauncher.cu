//expect: verified

// The launcher is not called by name: the dispatcher hands it to a driver, which calls
// it through its parameter. That call happens in the contexts of the driver's call
// that passed it, so `stage` is checked with 64 threads (the size `main` passes), for
// which the slot `buf[t % 64]` is each thread's own.
#include <cuda_runtime.h>

__global__ void stage(float *out, const float *in, int n)
{
    __shared__ float buf[64];
    unsigned t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    buf[t % 64] = i < n ? in[i] : 0.0f;
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
    cudaMemset(out, 0, n * sizeof(float));
    launch(out, in, n, threads);
    cudaDeviceSynchronize();
}

void dispatch(int which, float *out, const float *in, int n, int threads)
{
    switch (which) {
    case 1:
        run_pass(out, in, n, launch_stage, threads);
        break;
    default:
        break;
    }
}

int main()
{
    int n = 4096;
    int threads = 64;
    float *d_in, *d_out;
    cudaMalloc(&d_in, n * sizeof(float));
    cudaMalloc(&d_out, n * sizeof(float));
    dispatch(1, d_out, d_in, n, threads);
    return 0;
}
