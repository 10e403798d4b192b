//expect: verified

// Twin of dim3FieldConditionalRace.cu: the field is assigned as a statement of its
// declaration's block before the launch, so the launch has 32 threads; the later
// assignment after the launch does not reach it.
#include <cuda_runtime.h>

__global__ void fill(int *cells) { cells[threadIdx.x % 64] = threadIdx.x; }

int main(int argc, char **argv)
{
    int *cells;
    cudaMalloc(&cells, 64 * sizeof(int));
    dim3 block(128);
    block.x = 32;
    fill<<<1, block>>>(cells);
    block.x = 256;
    cudaDeviceSynchronize();
    return 0;
}
