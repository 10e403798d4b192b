//expect: race

// `case 256:` is a label inside case 64's block: entering there launches `ring<64>`
// with 256 threads, so the case gives the launch no condition.
#include <cuda_runtime.h>
template <int W>
__global__ void ring(int *out)
{
    __shared__ int s[W];
    s[threadIdx.x % W] = threadIdx.x;  //~ race(s)
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[(threadIdx.x + 1) % W];
}
int main(int argc, char **argv)
{
    int *d;
    cudaMalloc(&d, 4096 * sizeof(int));
    int threads = atoi(argv[1]);
    switch (threads) {
    case 64: {
    case 256:
        ring<64><<<4, threads>>>(d);
        break;
    }
    default:
        break;
    }
    return 0;
}
