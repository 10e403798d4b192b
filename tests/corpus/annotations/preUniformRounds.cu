//pass
//--blockDim=128 --gridDim=16
//expect: verified

// Each block smooths its tile for a number of rounds read from a per-thread table that
// the caller fills with one value: the precondition says every thread reads the same
// count, so the barriers in the loop are reached by all threads of the block.
__global__ void smoothRounds(const int *rounds, float *data)
{
    __shared__ float tile[129];
    __requires(__uniform_int(rounds[threadIdx.x]));
    int n = rounds[threadIdx.x];
    unsigned t = threadIdx.x;
    tile[t] = data[blockIdx.x * blockDim.x + t];
    if (t == 0)
        tile[128] = 0.0f;
    __syncthreads();
    if (n > 0) {
        float v = 0.5f * (tile[t] + tile[t + 1]);
        __syncthreads();
        tile[t] = v;
        __syncthreads();
    }
    data[blockIdx.x * blockDim.x + t] = tile[t];
}
