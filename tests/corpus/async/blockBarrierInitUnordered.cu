//pass
//expect: race

// The twin of blockBarrier.cu without the __syncthreads() after init: other threads may
// give their copies to the barrier, and arrive, before thread 0 has initialized it.
#include <cuda/barrier>

__global__ void barrierGatherEarly(const unsigned *in, unsigned *out)
{
    __shared__ unsigned words[256];
    __shared__ cuda::barrier<cuda::thread_scope_block> ready;
    if (threadIdx.x == 0)
        init(&ready, blockDim.x); //~ race(ready)
    cuda::memcpy_async(&words[threadIdx.x], &in[blockIdx.x * 256 + threadIdx.x], sizeof(unsigned), ready); //~ race(ready)
    ready.arrive_and_wait(); //~ race(ready)
    out[blockIdx.x * 256 + threadIdx.x] = words[threadIdx.x ^ 1];
}

int main()
{
    unsigned *in, *out;
    barrierGatherEarly<<<6, 256>>>(in, out);
    return 0;
}
