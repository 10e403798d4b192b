//expect: race

// Twin of reassignedStraightLine.cu: after the plain assignment, a by-reference call
// changes the size to 128, and threads `t` and `t + 64` share a cell. The value at the
// launch is unknown, not the last plain assignment's.
__global__ void fill(int *cells)
{
    cells[threadIdx.x % 64] = threadIdx.x; //~ race(cells)
}

static void widen(int &n)
{
    n = 128;
}

int main()
{
    int *cells;
    int threads = 32;
    threads = 64;
    widen(threads);
    fill<<<1, threads>>>(cells);
    return 0;
}
