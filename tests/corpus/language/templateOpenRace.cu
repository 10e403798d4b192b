//pass
//--blockDim=256 --gridDim=8
//expect: race

// Twin of templateOpen.cu: a signed SHIFT may be negative or zero, and a zero
// SHIFT folds every thread of a block onto one element. SHIFT is the same in every
// thread, but not a constant the tool may pick.
template <typename T, int SHIFT>
__global__ void scatter(T *dst, const T *src)
{
    __shared__ T tile[256];
    tile[threadIdx.x * SHIFT % 256] = src[threadIdx.x];  //~ race(tile)
    __syncthreads();
    dst[blockIdx.x * blockDim.x + threadIdx.x] = tile[threadIdx.x];
}
