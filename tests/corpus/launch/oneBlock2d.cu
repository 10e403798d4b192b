//expect: verified

// Race-free only because of its launch: one block of 16 x 8 threads, and the
// kernel lays the block out with a row width of 16 (`ROW`). With `--launch symbolic`
// a block wider than 16 makes two threads share a cell of `board`, and several
// blocks all write the same cells.
#include <cuda_runtime.h>

#define ROW 16

__global__ void clear_board(int *board, int value)
{
    unsigned cell = threadIdx.y * ROW + threadIdx.x;
    board[cell] = value + (int)threadIdx.x;
}

int main()
{
    int *d_board;
    cudaMalloc(&d_board, ROW * 8 * sizeof(int));
    clear_board<<<1, dim3(ROW, 8)>>>(d_board, 7);
    cudaDeviceSynchronize();
    cudaFree(d_board);
    return 0;
}
