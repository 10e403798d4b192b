//pass
//--blockDim=512 --gridDim=64
//expect: verified

#define BITONIC_TILE_SIZE 512

// C++ AMP bitonic sort, the in-tile step: one tile sorts BITONIC_TILE_SIZE
// keys for a given level and mask.
__global__ void bitonic_sort_kernel(unsigned int *data, unsigned int ulevel, unsigned int ulevelmask, unsigned int width)
{
    __requires(ulevel == 256);
    __requires(ulevelmask == 512);
    __shared__ unsigned int sh_data[BITONIC_TILE_SIZE];
    int local_idx = threadIdx.x;
    int global_idx = blockIdx.x * BITONIC_TILE_SIZE + threadIdx.x;

    sh_data[local_idx] = data[global_idx];
    __syncthreads();

    for (unsigned int j = ulevel >> 1; j > 0; j >>= 1) {
        unsigned int result = ((sh_data[local_idx & ~j] <= sh_data[local_idx | j]) == (bool)(ulevelmask & global_idx))
                                  ? sh_data[local_idx ^ j] : sh_data[local_idx];
        __syncthreads();
        sh_data[local_idx] = result;
        __syncthreads();
    }
    data[global_idx] = sh_data[local_idx];
}
