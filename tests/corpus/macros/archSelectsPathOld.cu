//fail
//--blockDim=64 --gridDim=2 -D__CUDA_ARCH__=600
//expect: race

// archSelectsPath.cu built for sm_60: the barrier is compiled out and the rotated
// read races with the neighbour's write.

__global__ void rotate(int *data) {
    __shared__ int tile[64];
    int t = threadIdx.x;
    tile[t] = data[blockIdx.x * 64 + t]; //~ race(tile)
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
    __syncthreads();
#endif
    data[blockIdx.x * 64 + t] = tile[(t + 1) % 64]; //~ race(tile)
}
