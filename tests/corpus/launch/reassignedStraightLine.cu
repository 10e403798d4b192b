//expect: verified

// A local reassigned in straight-line code has, at each launch, the value of the last
// assignment before it: 64 threads, then 32 (each thread its own cell of 64).
__global__ void fill(int *cells)
{
    cells[threadIdx.x % 64] = threadIdx.x;
}

int main()
{
    int *cells;
    int threads = 128;
    threads = 64;
    fill<<<1, threads>>>(cells);
    threads = threads / 2;
    fill<<<1, threads>>>(cells);
    return 0;
}
