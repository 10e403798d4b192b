//pass
//--blockDim=256 --gridDim=512
//expect: verified

__device__ inline void Comparator(unsigned int &keyA, unsigned int &valA, unsigned int &keyB, unsigned int &valB, unsigned int dir)
{
    unsigned int t;
    if ((keyA > keyB) == dir) {
        t = keyA; keyA = keyB; keyB = t;
        t = valA; valA = valB; valB = t;
    }
}

// One global merge step of the bitonic network: every thread compares and
// swaps one pair (pos, pos + stride) of the whole array.
__global__ void bitonicMergeGlobal(unsigned int *d_DstKey, unsigned int *d_DstVal, unsigned int *d_SrcKey,
                                   unsigned int *d_SrcVal, unsigned int arrayLength, unsigned int size,
                                   unsigned int stride, unsigned int dir)
{
    __requires(arrayLength == 262144);
    __requires(size == 2048);
    __requires(stride == 512);
    unsigned int global_comparatorI = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int comparatorI = global_comparatorI & (arrayLength / 2 - 1);

    unsigned int ddd = dir ^ ((comparatorI & (size / 2)) != 0);
    unsigned int pos = 2 * global_comparatorI - (global_comparatorI & (stride - 1));

    unsigned int keyA = d_SrcKey[pos + 0];
    unsigned int valA = d_SrcVal[pos + 0];
    unsigned int keyB = d_SrcKey[pos + stride];
    unsigned int valB = d_SrcVal[pos + stride];

    Comparator(keyA, valA, keyB, valB, ddd);

    d_DstKey[pos + 0] = keyA;
    d_DstVal[pos + 0] = valA;
    d_DstKey[pos + stride] = keyB;
    d_DstVal[pos + stride] = valB;
}
