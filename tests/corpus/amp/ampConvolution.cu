//pass
//--blockDim=[256,1] --gridDim=[8,512]
//expect: verified

#define TILE_SIZE 256
#define RADIUS 7

// C++ AMP separable convolution, horizontal pass with a tile plus apron loaded
// by the first and last threads.
__global__ void convolution_tiling(const float *img, const float *filter, float *result, int width, int height)
{
    __requires(width == 2048);
    __requires(height == 512);
    __shared__ float local[TILE_SIZE + 2 * RADIUS];
    int gx = blockIdx.x * blockDim.x + threadIdx.x;
    int gy = blockIdx.y;
    int lx = threadIdx.x;

    local[lx + RADIUS] = img[gy * width + gx];
    if (lx < RADIUS) {
        int left = gx - RADIUS;
        local[lx] = left >= 0 ? img[gy * width + left] : 0.0f;
        int right = gx + TILE_SIZE;
        local[lx + TILE_SIZE + RADIUS] = right < width ? img[gy * width + right] : 0.0f;
    }
    __syncthreads();

    float sum = 0.0f;
    for (int k = -RADIUS; k <= RADIUS; k++)
        sum += local[lx + RADIUS + k] * filter[k + RADIUS];
    result[gy * width + gx] = sum;
}
