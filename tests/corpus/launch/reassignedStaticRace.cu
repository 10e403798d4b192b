//expect: race

// A `static` local keeps the previous call's value: the second call of `run` launches
// 128 threads, and threads `t` and `t + 64` share a cell.
__global__ void fill(int *cells)
{
    cells[threadIdx.x % 64] = threadIdx.x; //~ race(cells)
}

static void run(int *cells)
{
    static int threads = 64;
    fill<<<1, threads>>>(cells);
    threads = 128;
}

int main()
{
    int *cells;
    run(cells);
    run(cells);
    return 0;
}
