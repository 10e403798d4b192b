//expect: race

// Twin of boundsFlat.cu with a stage of 128 cells: a block of more than 128 threads
// (which the bound of 256 allows) has two threads on one cell. The witness is a
// block of at most 256 threads in all.
#include <cuda_runtime.h>

__global__ void __launch_bounds__(256) flat_stage(const float *in, float *sum)
{
    __shared__ float stage[256];
    unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    stage[t % 128] = in[t];                     //~ race(stage)
    __syncthreads();
    if (t == 0) {
        atomicAdd(sum, stage[0] + stage[255]);
    }
}
