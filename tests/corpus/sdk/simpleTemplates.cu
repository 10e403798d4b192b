//pass
//--blockDim=64 --gridDim=1
//expect: verified

#include <stdio.h>

template <typename T> struct SharedArray {
    __device__ T *get() {
        extern __shared__ int raw_shared[];
        return (T *)raw_shared;
    }
};

// Every thread squares its input in shared memory, then writes a neighbour's
// value scaled by the block size.
template <class T>
__global__ void scaleKernel(T *in, T *out)
{
    SharedArray<T> smem;
    T *s = smem.get();
    const unsigned int tid = threadIdx.x;
    const unsigned int n = blockDim.x;
    s[tid] = in[tid];
    __syncthreads();
    s[tid] = (T)n * s[tid];
    __syncthreads();
    out[tid] = s[(tid + 1) % n];
}

template __global__ void scaleKernel<float>(float *, float *);
template __global__ void scaleKernel<int>(int *, int *);
