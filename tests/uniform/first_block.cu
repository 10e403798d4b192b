//--blockDim=64 --gridDim=4
// Only block 0 reads and writes the tile, so the barrier between the read and the write
// belongs inside `if (blockIdx.x == 0)`, where only one block of four runs it.
__global__ void first_block(int *out) {
    __shared__ int tile[128];
    int x = 0;
    int y = 0;
    if (blockIdx.x == 0 && threadIdx.x % 2 == 0) {
        x = tile[threadIdx.x + 4];
    }
    if (blockIdx.x == 0) {
        y = 1;
    }
    if (blockIdx.x == 0 && threadIdx.x % 4 == 0) {
        tile[threadIdx.x] = x;
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = x + y;
}

// The same with a brace-less branch: the barrier needs braces around it.
__global__ void first_block_braceless(int *out) {
    __shared__ int tile[128];
    int x = 0;
    int y = 0;
    if (blockIdx.x == 0 && threadIdx.x % 2 == 0)
        x = tile[threadIdx.x + 4];
    if (blockIdx.x == 0)
        y = 1;
    if (blockIdx.x == 0 && threadIdx.x % 4 == 0)
        tile[threadIdx.x] = x;
    out[blockIdx.x * blockDim.x + threadIdx.x] = x + y;
}

// The twin: the middle guard depends on the thread, a barrier inside would diverge.
__global__ void thread_guard(int *out) {
    __shared__ int tile[128];
    int x = 0;
    int y = 0;
    if (blockIdx.x == 0 && threadIdx.x % 2 == 0) {
        x = tile[threadIdx.x + 4];
    }
    if (threadIdx.x < 32) {
        y = 1;
    }
    if (blockIdx.x == 0 && threadIdx.x % 4 == 0) {
        tile[threadIdx.x] = x;
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = x + y;
}
