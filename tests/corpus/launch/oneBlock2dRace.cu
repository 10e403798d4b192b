//expect: race

// Twin of oneBlock2d.cu: the block is 32 x 8 threads but rows are still 16 cells
// apart, so thread (x + 16, y) writes the cell of thread (x, y + 1).
#include <cuda_runtime.h>

#define ROW 16

__global__ void clear_board(int *board, int value)
{
    unsigned cell = threadIdx.y * ROW + threadIdx.x;
    board[cell] = value + (int)threadIdx.x;            //~ race(board)
}

int main()
{
    int *d_board;
    cudaMalloc(&d_board, 2 * ROW * 8 * sizeof(int));
    dim3 block(2 * ROW, 8);
    clear_board<<<1, block>>>(d_board, 7);
    cudaDeviceSynchronize();
    cudaFree(d_board);
    return 0;
}
