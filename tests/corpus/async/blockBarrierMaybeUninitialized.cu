//pass
//expect: race

// The twin of blockBarrier.cu whose barrier is initialized only when `n` is positive:
// otherwise the barrier is never set up and orders nothing.
#include <cuda/barrier>

__global__ void barrierGatherSometimes(const unsigned *in, unsigned *out, int n)
{
    __shared__ unsigned words[256];
    __shared__ cuda::barrier<cuda::thread_scope_block> ready;
    if (threadIdx.x == 0 && n > 0)
        init(&ready, blockDim.x);
    __syncthreads();
    cuda::memcpy_async(&words[threadIdx.x], &in[blockIdx.x * 256 + threadIdx.x], sizeof(unsigned), ready); //~ race(words)
    ready.arrive_and_wait();
    out[blockIdx.x * 256 + threadIdx.x] = words[threadIdx.x ^ 1]; //~ race(words)
}

int main(int argc, char **argv)
{
    unsigned *in, *out;
    barrierGatherSometimes<<<6, 256>>>(in, out, argc - 1);
    return 0;
}
