//expect: race

// A lambda launches when it is called, after the size changed to 128: threads `t` and
// `t + 64` share a cell.
__global__ void fill(int *cells)
{
    cells[threadIdx.x % 64] = threadIdx.x; //~ race(cells)
}

int main()
{
    int *cells;
    int threads = 64;
    auto go = [&]() { fill<<<1, threads>>>(cells); };
    threads = 128;
    go();
    return 0;
}
