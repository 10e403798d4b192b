//expect: race
//expect-unfixable

// Twin of launchKernelEx.cu with two launches of `tally`: `cudaLaunchKernel` with
// one block of 64 x 4 threads (verified) and a second launch `<<<2, threads>>>`
// whose two blocks update the same cells of `hist` (a race); the kernel is checked
// once per launch, each reported under its own name.
#include <cuda_runtime.h>

__global__ void tally(const unsigned char *bytes, unsigned (*hist)[64], int n)
{
    unsigned lane = threadIdx.y * blockDim.x + threadIdx.x;
    unsigned stride = blockDim.x * blockDim.y;
    for (unsigned i = lane; i < n; i += stride) {
        hist[threadIdx.y][threadIdx.x] += bytes[i];     //~ race(hist)
    }
}

int main()
{
    int n = 1 << 20;
    unsigned char *d_bytes;
    unsigned (*d_hist)[64];
    cudaMalloc(&d_bytes, n);
    cudaMalloc(&d_hist, 4 * 64 * sizeof(unsigned));
    dim3 threads(64, 4);
    void *args[] = {&d_bytes, &d_hist, &n};
    cudaLaunchKernel((void *)tally, dim3(1), threads, args, 0, 0);
    tally<<<2, threads>>>(d_bytes, d_hist, n / 2);
    cudaDeviceSynchronize();
    return 0;
}
