//pass
//--blockDim=256 --gridDim=64
//expect: verified

#define SHARED_SIZE_LIMIT 512U

__device__ inline void Comparator(unsigned int &keyA, unsigned int &valA, unsigned int &keyB, unsigned int &valB, unsigned int dir)
{
    unsigned int t;
    if ((keyA > keyB) == dir) {
        t = keyA; keyA = keyB; keyB = t;
        t = valA; valA = valB; valB = t;
    }
}

// Batcher's odd-even merge sort on SHARED_SIZE_LIMIT-element chunks, two per thread.
__global__ void oddEvenMergeSortShared(unsigned int *d_DstKey, unsigned int *d_DstVal,
                                       unsigned int *d_SrcKey, unsigned int *d_SrcVal,
                                       unsigned int arrayLength, unsigned int dir)
{
    __requires(arrayLength == SHARED_SIZE_LIMIT);
    __shared__ unsigned int s_key[SHARED_SIZE_LIMIT];
    __shared__ unsigned int s_val[SHARED_SIZE_LIMIT];

    d_SrcKey += blockIdx.x * SHARED_SIZE_LIMIT + threadIdx.x;
    d_SrcVal += blockIdx.x * SHARED_SIZE_LIMIT + threadIdx.x;
    d_DstKey += blockIdx.x * SHARED_SIZE_LIMIT + threadIdx.x;
    d_DstVal += blockIdx.x * SHARED_SIZE_LIMIT + threadIdx.x;
    s_key[threadIdx.x + 0] = d_SrcKey[0];
    s_val[threadIdx.x + 0] = d_SrcVal[0];
    s_key[threadIdx.x + (SHARED_SIZE_LIMIT / 2)] = d_SrcKey[(SHARED_SIZE_LIMIT / 2)];
    s_val[threadIdx.x + (SHARED_SIZE_LIMIT / 2)] = d_SrcVal[(SHARED_SIZE_LIMIT / 2)];
    __syncthreads();

    for (unsigned int size = 2; size <= arrayLength; size <<= 1) {
        unsigned int stride = size / 2;
        unsigned int offset = threadIdx.x & (stride - 1);
        {
            unsigned int pos = 2 * threadIdx.x - (threadIdx.x & (stride - 1));
            Comparator(s_key[pos + 0], s_val[pos + 0], s_key[pos + stride], s_val[pos + stride], dir);
            __syncthreads();
            stride >>= 1;
        }
        for (; stride > 0; stride >>= 1) {
            unsigned int pos = 2 * threadIdx.x - (threadIdx.x & (stride - 1));
            if (offset >= stride)
                Comparator(s_key[pos - stride], s_val[pos - stride], s_key[pos + 0], s_val[pos + 0], dir);
            __syncthreads();
        }
    }

    d_DstKey[0] = s_key[threadIdx.x + 0];
    d_DstVal[0] = s_val[threadIdx.x + 0];
    d_DstKey[(SHARED_SIZE_LIMIT / 2)] = s_key[threadIdx.x + (SHARED_SIZE_LIMIT / 2)];
    d_DstVal[(SHARED_SIZE_LIMIT / 2)] = s_val[threadIdx.x + (SHARED_SIZE_LIMIT / 2)];
}
