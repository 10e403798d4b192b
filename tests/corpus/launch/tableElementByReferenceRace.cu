//expect: race

// The table of block sizes lists 64 and 128, but `widen(sizes[1])` rewrites an element
// through a reference parameter before the loop launches with it: 256 threads per
// block, and threads `t` and `t + 128` write the same ring slot. An element passed to
// a call other than by value makes the array no table.
#include <cuda_runtime.h>

__global__ void rotate(int *data)
{
    __shared__ int ring[128];
    unsigned t = threadIdx.x;
    ring[t % 128] = data[blockIdx.x * blockDim.x + t]; //~ race(ring)
    __syncthreads();
    data[blockIdx.x * blockDim.x + t] = ring[(t + 1) % blockDim.x];
}

void widen(int &threads) { threads = 2 * threads; }

int main()
{
    int *d;
    cudaMalloc(&d, 64 * 256 * sizeof(int));
    int sizes[] = {64, 128};
    widen(sizes[1]);
    for (int j = 0; j < 2; j++) {
        int bs = sizes[j];
        rotate<<<64, bs>>>(d);
    }
    cudaDeviceSynchronize();
    return 0;
}
