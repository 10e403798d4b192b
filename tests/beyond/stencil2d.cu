//--blockDim=[16,16] --gridDim=1
__global__ void stencil2d(float *out) {
    __shared__ float tile[17][17];
    int x = threadIdx.x, y = threadIdx.y;
    tile[y][x] = tile[y][x] + tile[y + 1][x] + tile[y][x + 1];
    out[y * 16 + x] = tile[y][x];
}
