//pass
//--blockDim=[32,16] --gridDim=[12,24]
//expect: verified

#define RADIUS 4
#define k_blockDimX 32
#define k_blockDimMaxY 16

__constant__ float stencil[RADIUS + 1];

// 3-D finite-difference stencil: a 2-D tile in shared memory with halos,
// marching in z with the z-neighbours kept in registers.
__global__ void FiniteDifferencesKernel(float *output, const float *input, const int dimx, const int dimy, const int dimz)
{
    __requires(dimx == 376);
    __requires(dimy == 376);
    __requires(dimz == 16);
    bool validr = true;
    bool validw = true;
    const int gtidx = blockIdx.x * blockDim.x + threadIdx.x;
    const int gtidy = blockIdx.y * blockDim.y + threadIdx.y;
    const int ltidx = threadIdx.x;
    const int ltidy = threadIdx.y;
    const int workx = blockDim.x;
    const int worky = blockDim.y;
    __shared__ float tile[k_blockDimMaxY + 2 * RADIUS][k_blockDimX + 2 * RADIUS];

    const int stride_y = dimx + 2 * RADIUS;
    const int stride_z = stride_y * (dimy + 2 * RADIUS);

    int inputIndex = 0;
    int outputIndex = 0;

    inputIndex += RADIUS * stride_y + RADIUS;
    inputIndex += gtidy * stride_y + gtidx;

    float infront[RADIUS];
    float behind[RADIUS];
    float current;

    const int tx = ltidx + RADIUS;
    const int ty = ltidy + RADIUS;

    if (gtidx >= dimx) validw = false;
    if (gtidy >= dimy) validw = false;
    if (gtidx >= dimx + RADIUS) validr = false;
    if (gtidy >= dimy + RADIUS) validr = false;

    for (int i = RADIUS - 2; i >= 0; i--) {
        if (validr) behind[i] = input[inputIndex];
        inputIndex += stride_z;
    }
    if (validr) current = input[inputIndex];
    outputIndex = inputIndex;
    inputIndex += stride_z;
    for (int i = 0; i < RADIUS; i++) {
        if (validr) infront[i] = input[inputIndex];
        inputIndex += stride_z;
    }

#pragma unroll 4
    for (int iz = 0; iz < dimz; iz++) {
        for (int i = RADIUS - 1; i > 0; i--) behind[i] = behind[i - 1];
        behind[0] = current;
        current = infront[0];
#pragma unroll 4
        for (int i = 0; i < RADIUS - 1; i++) infront[i] = infront[i + 1];
        if (validr) infront[RADIUS - 1] = input[inputIndex];
        inputIndex += stride_z;
        outputIndex += stride_z;
        __syncthreads();

        if (ltidy < RADIUS) {
            tile[ltidy][tx] = input[outputIndex - RADIUS * stride_y];
            tile[ltidy + worky + RADIUS][tx] = input[outputIndex + worky * stride_y];
        }
        if (ltidx < RADIUS) {
            tile[ty][ltidx] = input[outputIndex - RADIUS];
            tile[ty][ltidx + workx + RADIUS] = input[outputIndex + workx];
        }
        tile[ty][tx] = current;
        __syncthreads();

        float value = stencil[0] * current;
#pragma unroll 4
        for (int i = 1; i <= RADIUS; i++)
            value += stencil[i] * (infront[i - 1] + behind[i - 1] + tile[ty - i][tx] + tile[ty + i][tx] + tile[ty][tx - i] + tile[ty][tx + i]);

        if (validw) output[outputIndex] = value;
    }
}
