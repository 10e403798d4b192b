//pass
//expect: race

// The twin of missingHeader.cu without its barrier: a header that is not found must
// not hide the kernel's race.
#include "cudla.h"

__global__ void reverseTile(float *data)
{
    __shared__ float tile[1024];
    unsigned base = blockIdx.x * blockDim.x;
    tile[threadIdx.x] = data[base + threadIdx.x];                  //~ race(tile)
    data[base + threadIdx.x] = tile[blockDim.x - 1 - threadIdx.x];            //~ race(tile)
}

int main()
{
    cudlaDevHandle dev;
    if (cudlaCreateDevice(0, &dev, 0) != cudlaSuccess)
        return 1;
    float *d;
    cudaMalloc(&d, 4096 * sizeof(float));
    reverseTile<<<32, 128>>>(d);
    return 0;
}
