//pass
//--blockDim=256 --gridDim=32
//expect: verified

// An early exit that no thread takes under the precondition; the barrier is fine.
__global__ void guardedExit(float *data, unsigned int len)
{
    __requires(len == 8192);
    __shared__ float tile[256];
    unsigned int id = blockIdx.x * blockDim.x + threadIdx.x;
    if (id >= len) return;
    tile[threadIdx.x] = data[id];
    __syncthreads();
    data[id] = tile[255 - threadIdx.x];
}
