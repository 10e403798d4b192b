//--blockDim=64 --gridDim=[128,4]
// Sobol quasi-random sequence (the SDK SobolQRNG sample's generator): blockIdx.y picks
// the dimension; the block stages that dimension's 32 direction numbers in shared
// memory, then each thread computes its first point from the Gray code of its index and
// the following ones, a grid stride apart, by one XOR each.

#define DIRECTIONS 32
#define TWO_POW_MINUS_32 2.3283064E-10F

__global__ void sobolGPU_kernel(unsigned nPoints, unsigned nDims, unsigned *directions, float *points)
{
    __requires(nPoints == 100000);
    __requires(nDims == 4);

    __shared__ unsigned int dir[DIRECTIONS];

    // this block's dimension
    directions = directions + DIRECTIONS * blockIdx.y;
    points = points + nPoints * blockIdx.y;

    if (threadIdx.x < DIRECTIONS)
        dir[threadIdx.x] = directions[threadIdx.x];

    __syncthreads();

    int first = threadIdx.x + blockIdx.x * blockDim.x;
    int stride = gridDim.x * blockDim.x;

    // X = XOR of the direction numbers selected by the bits of gray(first)
    unsigned int gray = first ^ (first >> 1);
    unsigned int X = 0;
    for (unsigned int bit = 0; bit < __ffs(stride) - 1; bit++) {
        unsigned int select = 0 - (gray & 1);
        X ^= select & dir[bit];
        gray = gray >> 1;
    }

    if (first < nPoints)
        points[first] = (float)X * TWO_POW_MINUS_32;

    // moving by a power-of-two stride flips the stride's own bit and the bit of the
    // lowest zero of the index below it
    unsigned int strideDir = dir[__ffs(stride) - 2];
    unsigned int lowMask = stride - 1;
    for (unsigned int i = first + stride; i < nPoints; i += stride) {
        X ^= strideDir ^ dir[__ffs(~((i - stride) | lowMask)) - 1];
        points[i] = (float)X * TWO_POW_MINUS_32;
    }
}
