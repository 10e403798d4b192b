//expect: verified

// The CUDA Programming Guide's shape: thread 0 stores the block's partial result,
// fences, and takes a ticket (`atomicInc`) in one branch; the flag that says "last"
// lives in shared memory at file scope. Only thread 0's store must be ordered, and it
// precedes thread 0's own fence. The launch has one-dimensional blocks and grids, which
// the ticket's comparison with `gridDim.x - 1` needs.
#include <cuda_runtime.h>

__device__ unsigned int arrivals = 0;
__shared__ bool isLastBlockDone;

__device__ float blockPartial(const float *data, unsigned n, float *scratch)
{
    unsigned t = threadIdx.x;
    float acc = 0.0f;
    for (unsigned i = blockIdx.x * blockDim.x + t; i < n; i += blockDim.x * gridDim.x) acc += data[i];
    scratch[t] = acc;
    __syncthreads();
    float s = 0.0f;
    if (t == 0) {
        for (unsigned k = 0; k < blockDim.x; k++) s += scratch[k];
    }
    return s;
}

__global__ void total(const float *data, unsigned n, volatile float *result)
{
    __shared__ float scratch[1024];
    float partialSum = blockPartial(data, n, scratch);
    if (threadIdx.x == 0) {
        result[blockIdx.x] = partialSum;
        __threadfence();
        unsigned int value = atomicInc(&arrivals, gridDim.x);
        isLastBlockDone = (value == (gridDim.x - 1));
    }
    __syncthreads();
    if (isLastBlockDone) {
        if (threadIdx.x == 0) {
            float sum = 0.0f;
            for (unsigned b = 0; b < gridDim.x; b++) sum += result[b];
            result[0] = sum;
            arrivals = 0;
        }
    }
}

void launch_total(const float *data, unsigned n, float *result, int blocks)
{
    total<<<blocks, 256>>>(data, n, result);
}
