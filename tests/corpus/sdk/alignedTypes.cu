//pass
//--blockDim=256 --gridDim=64
//expect: verified

typedef struct __align__(4) { unsigned char r, g, b, a; } RGBA8;
typedef struct __align__(8) { unsigned int l, a; } LA32;
typedef struct __align__(16) { unsigned int r, g, b; } RGB32;
typedef struct __align__(16) { RGBA8 c1, c2, c3, c4; } RGBA32x4;

// Copies arrays of aligned structs element by element with a grid-stride loop.
template <class TData> __global__ void testKernel(TData *d_odata, TData *d_idata, int numElements)
{
    const int tid = blockDim.x * blockIdx.x + threadIdx.x;
    const int numThreads = blockDim.x * gridDim.x;
    for (int pos = tid; pos < numElements; pos += numThreads)
        d_odata[pos] = d_idata[pos];
}

template __global__ void testKernel<RGBA8>(RGBA8 *, RGBA8 *, int);
template __global__ void testKernel<LA32>(LA32 *, LA32 *, int);
template __global__ void testKernel<RGB32>(RGB32 *, RGB32 *, int);
template __global__ void testKernel<RGBA32x4>(RGBA32x4 *, RGBA32x4 *, int);
