//pass
//expect: race

// The twin of blockBarrier.cu whose barrier expects half of the block: a phase completes
// once half of the threads arrived, so a thread may pass before its neighbour's copy.
#include <cuda/barrier>

__global__ void barrierGatherHalf(const unsigned *in, unsigned *out)
{
    __shared__ unsigned words[256];
    __shared__ cuda::barrier<cuda::thread_scope_block> ready;
    if (threadIdx.x == 0)
        init(&ready, blockDim.x / 2);
    __syncthreads();
    cuda::memcpy_async(&words[threadIdx.x], &in[blockIdx.x * 256 + threadIdx.x], sizeof(unsigned), ready); //~ race(words)
    ready.arrive_and_wait();
    out[blockIdx.x * 256 + threadIdx.x] = words[threadIdx.x ^ 1];                                      //~ race(words)
}

int main()
{
    unsigned *in, *out;
    barrierGatherHalf<<<6, 256>>>(in, out);
    return 0;
}
