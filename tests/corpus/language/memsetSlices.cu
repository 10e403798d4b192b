//pass
//--blockDim=32 --gridDim=4
//expect: verified

struct Cell { int count; float weight; };

// `memset` clears each thread's own slice of a global histogram (a byte length that
// covers whole cells), and `memcpy` of a struct copies one element.
__global__ void clearSlices(int *hist, Cell *cells, const Cell *init, int width)
{
    __requires(width > 0);
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    memset(hist + g * width, 0, width * sizeof(int));
    memcpy(&cells[g], &init[g], sizeof(Cell));
    hist[g * width] = cells[g].count;
}
