//fail
//--blockDim=128 --gridDim=16
//expect: divergence

// preUniformRounds.cu without its precondition: the per-thread round counts may differ,
// so the threads of a block may disagree on entering the rounds and their barriers.
__global__ void smoothRounds(const int *rounds, float *data)
{
    __shared__ float tile[129];
    int n = rounds[threadIdx.x];
    unsigned t = threadIdx.x;
    tile[t] = data[blockIdx.x * blockDim.x + t];
    if (t == 0)
        tile[128] = 0.0f;
    __syncthreads();
    if (n > 0) {
        float v = 0.5f * (tile[t] + tile[t + 1]); //~ race(tile)
        __syncthreads(); //~ divergence
        tile[t] = v; //~ race(tile)
        __syncthreads(); //~ divergence
    }
    data[blockIdx.x * blockDim.x + t] = tile[t];
}
