//pass
//--blockDim=256 --gridDim=1
//expect: verified

#define NUM 256

__device__ inline void swap(int &a, int &b)
{
    int tmp = a;
    a = b;
    b = tmp;
}

// In-place bitonic sort of one block's worth of keys.
__global__ static void bitonicSort(int *values)
{
    __shared__ int shared[NUM];
    const unsigned int tid = threadIdx.x;
    shared[tid] = values[tid];
    __syncthreads();

    for (unsigned int k = 2; k <= NUM; k *= 2) {
        for (unsigned int j = k / 2; j > 0; j /= 2) {
            unsigned int ixj = tid ^ j;
            if (ixj > tid) {
                if ((tid & k) == 0) {
                    if (shared[tid] > shared[ixj]) swap(shared[tid], shared[ixj]);
                } else {
                    if (shared[tid] < shared[ixj]) swap(shared[tid], shared[ixj]);
                }
            }
            __syncthreads();
        }
    }
    values[tid] = shared[tid];
}
