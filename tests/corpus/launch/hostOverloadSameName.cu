//expect: verified

// The host function `blur` has the kernel's name and launches it: calling it is no
// escape of the kernel (an unconfigured call cannot launch a `__global__` function),
// and the kernel's launch inside it is no call of the host function. Both callers, the
// direct call and the benchmark forwarder, pass 128 threads, for which the staging
// slot `tile[t % 128]` is each thread's own.
#include <cuda_runtime.h>
#include <utility>

__global__ void blur(float *out, const float *in, int n)
{
    __shared__ float tile[128];
    unsigned t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    tile[t % 128] = i < n ? in[i] : 0.0f;
    __syncthreads();
    if (i < n)
        out[i] = 0.5f * (tile[t % 128] + tile[(t + 1) % 128]);
}

void blur(float *out, const float *in, int n, int threads)
{
    blur<<<(n + threads - 1) / threads, threads>>>(out, in, n);
}

// What the benchmark times: a function of another name (a template cannot take an
// overloaded name) that calls the host overload.
void run_blur(float *out, const float *in, int n, int threads)
{
    blur(out, in, n, threads);
}

template <class F, class... Args>
float time_it(int reps, F f, Args &&...args)
{
    for (int r = 0; r < reps; r++)
        f(std::forward<Args>(args)...);
    return 0.0f;
}

int main()
{
    const int n = 1 << 16;
    float *d_in, *d_out;
    cudaMalloc(&d_in, n * sizeof(float));
    cudaMalloc(&d_out, n * sizeof(float));
    blur(d_out, d_in, n, 128);
    time_it(20, run_blur, d_out, d_in, n, 128);
    cudaDeviceSynchronize();
    return 0;
}
