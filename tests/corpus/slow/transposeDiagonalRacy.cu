//--blockDim=[32,8] --gridDim=[16,16]
//expect: race
//note: the barrier between filling the tile and reading it transposed is missing.

// (Racy twin of transposeDiagonal.cu.) Tiled matrix transpose with the blocks taken in diagonal order (so that concurrently
// running blocks use different memory partitions): block (bx, by) works on tile
// ((bx + by) % gridDim.x, bx). Each 32x32 tile is read by rows of 8 threads, four rows
// per thread, and written transposed; the tile is padded to 33 columns. The matrix is
// 512 x 512, as many tiles as blocks.

#define TILE 32
#define ROWS 8
#define WIDTH 512
#define HEIGHT 512

__global__ void transposeDiagonalRacy(float *odata, const float *idata)
{
    __shared__ float tile[TILE][TILE + 1];
    const int by = blockIdx.x;
    const int bx = (blockIdx.x + blockIdx.y) % gridDim.x;
    int x = bx * TILE + threadIdx.x;
    int y = by * TILE + threadIdx.y;
    const int in = x + y * WIDTH;
    x = by * TILE + threadIdx.x;
    y = bx * TILE + threadIdx.y;
    const int out = x + y * HEIGHT;
    for (int i = 0; i < TILE; i += ROWS) {
        tile[threadIdx.y + i][threadIdx.x] = idata[in + i * WIDTH]; //~ race(tile)
    }
    for (int i = 0; i < TILE; i += ROWS) {
        odata[out + i * HEIGHT] = tile[threadIdx.x][threadIdx.y + i]; //~ race(tile)
    }
}
