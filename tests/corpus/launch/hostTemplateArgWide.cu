//expect: race

// Twin of hostTemplateArg.cu: the host template launches `rotate_ring<BS>` with
// 2 * BS threads per block, so threads t and t + BS share a ring cell. The race is
// found in each instance the host template makes.
#include <cuda_runtime.h>

template <int W>
__global__ void rotate_ring(const float *in, float *out)
{
    __shared__ float ring[W];
    unsigned t = threadIdx.x;
    unsigned at = blockIdx.x * blockDim.x + t;
    ring[t % W] = in[at];                      //~ race(ring)
    __syncthreads();
    out[at] = ring[(t + 1) % W];
}

template <int BS>
void launch_ring(const float *d_in, float *d_out, int n)
{
    rotate_ring<BS><<<n / (2 * BS), 2 * BS>>>(d_in, d_out);
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
