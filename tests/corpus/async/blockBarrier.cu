//pass
//expect: verified

// A cuda::barrier for the whole block: each thread's copy completes when the barrier's
// phase does, and arrive_and_wait() orders every copy before every read.
#include <cuda/barrier>

__global__ void barrierGather(const unsigned *in, unsigned *out)
{
    __shared__ unsigned words[256];
    __shared__ cuda::barrier<cuda::thread_scope_block> ready;
    if (threadIdx.x == 0)
        init(&ready, blockDim.x);
    __syncthreads();
    cuda::memcpy_async(&words[threadIdx.x], &in[blockIdx.x * 256 + threadIdx.x], sizeof(unsigned), ready);
    ready.arrive_and_wait();
    out[blockIdx.x * 256 + threadIdx.x] = words[threadIdx.x ^ 1];
}

int main()
{
    unsigned *in, *out;
    barrierGather<<<6, 256>>>(in, out);
    return 0;
}
