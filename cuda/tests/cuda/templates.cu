//--blockDim=256 --gridDim=1
// The SDK's simpleTemplates SharedMemory<T>::getPointer() idiom, the sortingNetworks
// bitonic sort with a Comparator on references into shared memory, and a functor.

template <typename T> struct SharedMemory {
    __device__ T *getPointer() { extern __device__ void error(void); error(); return NULL; }
};
template <> struct SharedMemory<int> {
    __device__ int *getPointer() { extern __shared__ int s_int[]; return s_int; }
};
typedef unsigned int uint;
__device__ inline void Comparator(uint &keyA, uint &valA, uint &keyB, uint &valB, uint dir) {
    uint t;
    if ((keyA > keyB) == dir) {
        t = keyA; keyA = keyB; keyB = t;
        t = valA; valA = valB; valB = t;
    }
}
template <class T>
__global__ void testKernel(T *g_idata, T *g_odata) {
    SharedMemory<T> smem;
    T *sdata = smem.getPointer();
    const unsigned int tid = threadIdx.x;
    sdata[tid] = g_idata[tid];
    __syncthreads();
    g_odata[tid] = sdata[(tid + 1) % blockDim.x];
}
template __global__ void testKernel<int>(int *, int *);
__global__ void bitonic(uint *d_Key, uint *d_Val, uint arrayLength, uint dir) {
    __shared__ uint s_key[1024];
    __shared__ uint s_val[1024];
    s_key[threadIdx.x] = d_Key[threadIdx.x];
    s_val[threadIdx.x] = d_Val[threadIdx.x];
    for (uint size = 2; size < arrayLength; size <<= 1) {
        uint ddd = dir ^ ((threadIdx.x & (size / 2)) != 0);
        for (uint stride = size / 2; stride > 0; stride >>= 1) {
            __syncthreads();
            uint pos = 2 * threadIdx.x - (threadIdx.x & (stride - 1));
            Comparator(s_key[pos + 0], s_val[pos + 0], s_key[pos + stride], s_val[pos + stride], ddd);
        }
    }
}

struct Add { __device__ int operator()(int a, int b) const { return a + b; } };
template <class Op>
__global__ void apply(int *A, Op op) {
    __shared__ int s[64];
    s[threadIdx.x] = A[threadIdx.x];
    __syncthreads();
    A[threadIdx.x] = op(s[threadIdx.x], s[(threadIdx.x + 1) % 64]);
}
template __global__ void apply<Add>(int *, Add);
