//--blockDim=64 --gridDim=32
// Sobol quasi-random numbers in the style of the SDK's SobolQRNG sample: each block
// copies the direction numbers of its dimension to shared memory, then every thread
// generates its points with a Gray-code update.

#define n_directions 32
#define k_2powneg32 2.3283064E-10F

__global__ void sobolGPU_kernel(unsigned n_vectors, unsigned n_dimensions, unsigned *d_directions, float *d_output)
{
    __shared__ unsigned int v[n_directions];

    // Offset into the correct dimension as specified by the block y coordinate
    d_directions = d_directions + n_directions * blockIdx.y;
    d_output = d_output + n_vectors * blockIdx.y;

    // Copy the direction numbers for this dimension into shared memory; there are only
    // 32 of them, so the first 32 threads do it.
    if (threadIdx.x < n_directions)
    {
        v[threadIdx.x] = d_directions[threadIdx.x];
    }

    __syncthreads();

    // Set initial index (i.e. which vector this thread is computing first) and stride
    int i0 = threadIdx.x + blockIdx.x * blockDim.x;
    int stride = gridDim.x * blockDim.x;

    // The Gray code of the first index determines the first value.
    unsigned int g = i0 ^ (i0 >> 1);

    unsigned int X = 0;
    unsigned int mask;

    for (unsigned int k = 0; k < __ffs(stride) - 1; k++)
    {
        // We want X ^= g_k * v[k], where g_k is one or zero.
        mask = - (g & 1);
        X ^= mask & v[k];
        g = g >> 1;
    }

    if (i0 < n_vectors)
    {
        d_output[i0] = (float)X * k_2powneg32;
    }

    // Now we can go on to the rest of the points, updating X by the direction number
    // of the rightmost zero bit of the index.
    unsigned int v_log2stridem1 = v[__ffs(stride) - 2];
    unsigned int v_stridemask = stride - 1;

    for (unsigned int i = i0 + stride; i < n_vectors; i += stride)
    {
        X ^= v_log2stridem1 ^ v[__ffs(~((i - stride) | v_stridemask)) - 1];
        d_output[i] = (float)X * k_2powneg32;
    }
}
