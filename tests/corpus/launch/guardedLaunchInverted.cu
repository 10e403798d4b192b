//expect: race

// Twin of guardedLaunch.cu: the branches are swapped, so `narrow_pass` runs with
// blocks of more than 128 threads (threads t and t + 128 share a slot) while
// `wide_pass` is fine for any block of at most 128 threads.
#include <assert.h>
#include <cuda_runtime.h>

__global__ void narrow_pass(const float *in, float *out)
{
    __shared__ float slot[128];
    unsigned t = threadIdx.x;
    slot[t % 128] = in[t] + 1.0f;               //~ race(slot)
    __syncthreads();
    out[t] = slot[(t + 1) % 128] - slot[t % 128];
}

__global__ void wide_pass(const float *in, float *out)
{
    __shared__ float slot[512];
    unsigned t = threadIdx.x;
    slot[t % 512] = in[t] * 2.0f;
    __syncthreads();
    out[t] = slot[(t + 64) % 512];
}

void run(const float *d_in, float *d_out, int threads)
{
    if (threads <= 128) {
        wide_pass<<<1, threads>>>(d_in, d_out);
    } else {
        assert(threads <= 512 && threads % 64 == 0);
        narrow_pass<<<1, threads>>>(d_in, d_out);
    }
}

int main(int argc, char **argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : 128;
    float *d_in, *d_out;
    cudaMalloc(&d_in, 512 * sizeof(float));
    cudaMalloc(&d_out, 512 * sizeof(float));
    run(d_in, d_out, threads);
    cudaDeviceSynchronize();
    return 0;
}
