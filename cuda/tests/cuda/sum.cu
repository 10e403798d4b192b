//--blockDim=512 --gridDim=16
// Array sums in the style of the C++ AMP reduction samples ported to CUDA: a tiled
// cascade (sum0) and a version that keeps a window per thread in a private array and
// unrolls the tree with a switch (sum1).

#define TILE_SIZE 512
#define WINDOW 4

typedef int elem_t;

__global__ void sum0(const elem_t *input, elem_t *partial, int count)
{
    __shared__ elem_t tile[TILE_SIZE];

    int local_idx = threadIdx.x;
    int global_idx = blockIdx.x * TILE_SIZE + local_idx;

    tile[local_idx] = global_idx < count ? input[global_idx] : 0;
    __syncthreads();

    for (int s = TILE_SIZE / 2; s > 0; s /= 2)
    {
        if (local_idx < s)
        {
            tile[local_idx] = tile[local_idx] + tile[local_idx + s];
        }
        __syncthreads();
    }

    if (local_idx == 0)
    {
        partial[blockIdx.x] = tile[0];
    }
}

__device__ elem_t window_sum(const elem_t *window)
{
    elem_t s = 0;
    for (int k = 0; k < WINDOW; k++)
        s += window[k];
    return s;
}

__global__ void sum1(const elem_t *input, elem_t *partial, int count)
{
    __shared__ elem_t tile[TILE_SIZE];
    elem_t window[WINDOW];

    unsigned int local_idx = threadIdx.x;
    unsigned int base = (blockIdx.x * TILE_SIZE + local_idx) * WINDOW;

    for (int k = 0; k < WINDOW; k++)
        window[k] = base + k < count ? input[base + k] : 0;

    tile[local_idx] = window_sum(window);
    __syncthreads();

    unsigned int s = TILE_SIZE / 2;
    do
    {
        switch (s)
        {
        case 256:
        case 128:
            if (local_idx < s)
                tile[local_idx] += tile[local_idx + s];
            break;
        default:
            if (local_idx < s)
            {
                elem_t other = tile[local_idx + s];
                tile[local_idx] += other;
            }
            break;
        }
        __syncthreads();
        s >>= 1;
    } while (s > 0);

    if (local_idx == 0)
        partial[blockIdx.x] = tile[0];
}
