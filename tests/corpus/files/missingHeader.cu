//pass
//expect: verified

// The host code uses a runtime header that is not on this machine (the DLA runtime of
// a Jetson board). What it declares is unknown; the kernel does not use it and is
// checked anyway, for every launch (a macro of the header could launch it too): each
// block reverses its own part of `data`, whatever its size.
#include "cudla.h"

__global__ void reverseTile(float *data)
{
    __shared__ float tile[1024];
    unsigned base = blockIdx.x * blockDim.x;
    tile[threadIdx.x] = data[base + threadIdx.x];
    __syncthreads();
    data[base + threadIdx.x] = tile[blockDim.x - 1 - threadIdx.x];
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
