//expect: race

// Twin of cLibraryArguments.cu: library calls that do change a size. A C++ library
// call may take it by reference: CUB's `temp_storage_bytes` (`size_t &`) is written by
// `cub::DeviceScan::ExclusiveSum`, which is no C interface of the toolkit. A C call
// writes through a pointer: `cudaOccupancyMaxPotentialBlockSize(&min_grid, &threads,
// k)` picks the block size. Both sizes are unknown at the launches, and the kernels,
// right only for 64 threads, are reported.
#include <cuda_runtime.h>
#include <cub/cub.cuh>

__global__ void tally(int *cells) { cells[threadIdx.x % 64] = threadIdx.x; }  //~ race(cells)
__global__ void tally_again(int *cells) { cells[threadIdx.x % 64] = threadIdx.x; }  //~ race(cells)

int main()
{
    int *cells, *in, *out;
    void *temp = nullptr;
    size_t bytes = 64;
    cudaMalloc(&cells, 64 * sizeof(int));
    cub::DeviceScan::ExclusiveSum(temp, bytes, in, out, 64);
    tally<<<1, bytes>>>(cells);

    int threads = 64, min_grid = 0;
    cudaOccupancyMaxPotentialBlockSize(&min_grid, &threads, tally_again);
    tally_again<<<1, threads>>>(cells);
    cudaDeviceSynchronize();
    return 0;
}
