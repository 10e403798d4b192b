//pass
//--blockDim=512 --gridDim=16
//expect: verified

#define TILE 512

// C++ AMP reduction, "cascade" variant: a window of the input per thread, then
// a shared-memory tree with sequential addressing.
__global__ void reduction_cascade(float *data, float *partial, unsigned int element_count)
{
    __requires(element_count == 16 * TILE * 8);
    __shared__ float tile_data[TILE];
    unsigned int local_idx = threadIdx.x;
    unsigned int tile_idx = blockIdx.x;
    unsigned int stride = TILE * gridDim.x;

    float sum = 0.0f;
    for (unsigned int i = tile_idx * TILE + local_idx; i < element_count; i += stride)
        sum += data[i];
    tile_data[local_idx] = sum;
    __syncthreads();

    for (unsigned int s = TILE / 2; s > 0; s /= 2) {
        if (local_idx < s)
            tile_data[local_idx] += tile_data[local_idx + s];
        __syncthreads();
    }
    if (local_idx == 0) partial[tile_idx] = tile_data[0];
}
