//pass
//--blockDim=512 --gridDim=64
//expect: race
//note: the scatter positions come from binary searches over shared data; they are distinct only when both runs are sorted, which nothing states, so for arbitrary contents (docs/semantics.md, Values and arithmetic) two threads may write one slot.

#define SHARED_SIZE_LIMIT 1024U

typedef unsigned int uint;

static inline __device__ uint nextPowerOfTwo(uint x)
{
    return 1U << (32 - __clz(x - 1));
}

template <uint sortDir> static inline __device__ uint binarySearchInclusive(uint val, uint *data, uint L, uint stride)
{
    if (L == 0) return 0;
    uint pos = 0;
    for (; stride > 0; stride >>= 1) {
        uint newPos = umin(pos + stride, L);
        if ((sortDir && (data[newPos - 1] <= val)) || (!sortDir && (data[newPos - 1] >= val))) pos = newPos;
    }
    return pos;
}

template <uint sortDir> static inline __device__ uint binarySearchExclusive(uint val, uint *data, uint L, uint stride)
{
    if (L == 0) return 0;
    uint pos = 0;
    for (; stride > 0; stride >>= 1) {
        uint newPos = umin(pos + stride, L);
        if ((sortDir && (data[newPos - 1] < val)) || (!sortDir && (data[newPos - 1] > val))) pos = newPos;
    }
    return pos;
}

// Merge sort of SHARED_SIZE_LIMIT keys per block: sorted runs are merged by
// computing each element's rank in the other run with a binary search.
template <uint sortDir> __global__ void mergeSortSharedKernel(uint *d_DstKey, uint *d_SrcKey, uint arrayLength)
{
    __requires(arrayLength == SHARED_SIZE_LIMIT);
    __shared__ uint s_key[SHARED_SIZE_LIMIT];

    d_SrcKey += blockIdx.x * SHARED_SIZE_LIMIT + threadIdx.x;
    d_DstKey += blockIdx.x * SHARED_SIZE_LIMIT + threadIdx.x;
    s_key[threadIdx.x + 0] = d_SrcKey[0];
    s_key[threadIdx.x + (SHARED_SIZE_LIMIT / 2)] = d_SrcKey[(SHARED_SIZE_LIMIT / 2)];

    for (uint stride = 1; stride < arrayLength; stride <<= 1) {
        uint lPos = threadIdx.x & (stride - 1);
        uint *baseKey = s_key + 2 * (threadIdx.x - lPos);
        __syncthreads();
        uint keyA = baseKey[lPos + 0];
        uint keyB = baseKey[lPos + stride];
        uint posA = binarySearchExclusive<sortDir>(keyA, baseKey + stride, stride, stride) + lPos;
        uint posB = binarySearchInclusive<sortDir>(keyB, baseKey + 0, stride, stride) + lPos;
        __syncthreads();
        baseKey[posA] = keyA; //~ race(s_key)
        baseKey[posB] = keyB; //~ race(s_key)
    }

    __syncthreads();
    d_DstKey[0] = s_key[threadIdx.x + 0];
    d_DstKey[(SHARED_SIZE_LIMIT / 2)] = s_key[threadIdx.x + (SHARED_SIZE_LIMIT / 2)];
}

template __global__ void mergeSortSharedKernel<1U>(uint *, uint *, uint);
