//pass
//--blockDim=[16,16] --gridDim=[4,4]
//expect: verified

// A ticket decides the sweep direction of a 2-D block: the corner thread draws
// it, the block reads it after the barrier, and both sweeps synchronize inside
// their loops.

__device__ unsigned int tickets;

__global__ void sweepTile(float *img, int width)
{
    __requires(width == 64);
    __shared__ unsigned int ticket;
    __shared__ float tileBuf[16][17];
    unsigned int tx = threadIdx.x, ty = threadIdx.y;
    int x = blockIdx.x * 16 + tx, y = blockIdx.y * 16 + ty;

    if (tx == 0 && ty == 0)
        ticket = atomicAdd(&tickets, 1u);
    tileBuf[ty][tx] = img[y * width + x];
    __syncthreads();
    if (ticket % 2 == 0) {
        for (int r = 1; r < 16; r++) {
            if (ty == r)
                tileBuf[ty][tx] += tileBuf[ty - 1][tx];
            __syncthreads();
        }
    } else {
        for (int r = 14; r >= 0; r--) {
            if (ty == r)
                tileBuf[ty][tx] += tileBuf[ty + 1][tx];
            __syncthreads();
        }
    }
    img[y * width + x] = tileBuf[ty][tx];
}
