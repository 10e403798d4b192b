//fail
//--blockDim=[16,16] --gridDim=[4,4]
//expect: race

// Every thread draws a ticket into the one shared slot: the writes race (the
// block still reads one value after the barrier, so the sweeps stay uniform).

__device__ unsigned int tickets;

__global__ void sweepTileEveryone(float *img, int width)
{
    __requires(width == 64);
    __shared__ unsigned int ticket;
    __shared__ float tileBuf[16][17];
    unsigned int tx = threadIdx.x, ty = threadIdx.y;
    int x = blockIdx.x * 16 + tx, y = blockIdx.y * 16 + ty;

    ticket = atomicAdd(&tickets, 1u); //~ race(ticket)
    tileBuf[ty][tx] = img[y * width + x];
    __syncthreads();
    if (ticket % 2 == 0) {
        for (int r = 1; r < 16; r++) {
            if (ty == r)
                tileBuf[ty][tx] += tileBuf[ty - 1][tx];
            __syncthreads();
        }
    }
    img[y * width + x] = tileBuf[ty][tx];
}
