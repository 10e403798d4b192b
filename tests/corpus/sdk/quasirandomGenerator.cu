//pass
//--blockDim=[128,1] --gridDim=[128,3]
//expect: verified

#define QRNG_DIMENSIONS 3
#define QRNG_RESOLUTION 31
#define INT_SCALE (1.0f / (float)0x80000001U)

static __constant__ unsigned int c_Table[QRNG_DIMENSIONS][QRNG_RESOLUTION];

// Niederreiter sequence: each output is the XOR of the direction numbers
// selected by the bits of its position; one grid row per dimension.
static __global__ void quasirandomGeneratorKernel(float *d_Output, unsigned int seed, unsigned int N)
{
    __requires(N == 1048576);
    unsigned int *dimBase = &c_Table[threadIdx.y][0];
    unsigned int tid = blockDim.x * blockIdx.x + threadIdx.x;
    unsigned int threadN = blockDim.x * gridDim.x;

    for (unsigned int pos = tid; pos < N; pos += threadN) {
        unsigned int result = 0;
        unsigned int data = seed + pos;
        for (int bit = 0; bit < QRNG_RESOLUTION; bit++, data >>= 1)
            if (data & 1) result ^= dimBase[bit];
        d_Output[__mul24(blockIdx.y, N) + pos] = (float)(result + 1) * INT_SCALE;
    }
}
