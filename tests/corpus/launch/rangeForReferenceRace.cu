//expect: race

// rangeForTable.cu where the loop's variable is a reference that doubles each
// element before the launch (`bs *= 2`): the sizes are not the table's, and 256
// threads race on the ring.
#include <cuda_runtime.h>

__global__ void rotate(int *data)
{
    __shared__ int ring[128];
    unsigned t = threadIdx.x;
    ring[t % 128] = data[blockIdx.x * blockDim.x + t]; //~ race(ring)
    __syncthreads();
    data[blockIdx.x * blockDim.x + t] = ring[(t + 1) % blockDim.x];
}

int main()
{
    int *d0;
    cudaMalloc(&d0, 64 * 256 * sizeof(int));
    int sizes[] = {64, 128};
    int bs = 512;
    for (int &bs : sizes) {
        bs *= 2;
        rotate<<<64, bs>>>(d0);
    }
    (void)bs;
    cudaDeviceSynchronize();
    return 0;
}
