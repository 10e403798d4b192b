//pass
//--blockDim=64 --gridDim=2
//expect: verified

// The default target (sm_75) takes the tiled path; a pre-Volta build would take the
// racy one (see archSelectsPathOld.cu).

__global__ void rotate(int *data) {
    __shared__ int tile[64];
    int t = threadIdx.x;
    tile[t] = data[blockIdx.x * 64 + t];
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
    __syncthreads();
#endif
    data[blockIdx.x * 64 + t] = tile[(t + 1) % 64];
}
