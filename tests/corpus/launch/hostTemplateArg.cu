//expect: verified

// Race-free only because of how the host template launches it: `rotate_ring<W>`
// keeps a ring of W cells, one per thread, which is right only when the block has
// at most W threads. `launch_ring<BS>` launches `rotate_ring<BS>` with BS threads
// per block, and main calls it as `launch_ring<64>` and `launch_ring<128>`: the
// host template's parameter gives both the kernel's template argument and the
// block size, so the kernel is checked as `rotate_ring<64>` with 64 threads and
// `rotate_ring<128>` with 128. With `--launch symbolic` the template is not
// instantiated from the host template and a wider block races on the ring.
#include <cuda_runtime.h>

template <int W>
__global__ void rotate_ring(const float *in, float *out)
{
    __shared__ float ring[W];
    unsigned t = threadIdx.x;
    unsigned at = blockIdx.x * blockDim.x + t;
    ring[t % W] = in[at];
    __syncthreads();
    out[at] = ring[(t + 1) % W];
}

template <int BS>
void launch_ring(const float *d_in, float *d_out, int n)
{
    rotate_ring<BS><<<n / BS, BS>>>(d_in, d_out);
}

int main()
{
    float *d_in, *d_out;
    cudaMalloc(&d_in, 8192 * sizeof(float));
    cudaMalloc(&d_out, 8192 * sizeof(float));
    launch_ring<64>(d_in, d_out, 8192);
    launch_ring<128>(d_in, d_out, 8192);
    cudaDeviceSynchronize();
    return 0;
}
