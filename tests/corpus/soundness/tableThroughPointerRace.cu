//pass
//expect: race

// The table of block sizes is changed through a pointer before the loop: 256 is
// launched, and a block of 256 threads wraps around the 128 slots. A table whose name
// is used other than to read its elements gives no launch contexts.
__global__ void wrap(int *d)
{
    d[blockIdx.x * 128 + threadIdx.x % 128] = threadIdx.x; //~ race(d)
}

int main()
{
    int *d;
    int widths[] = {64, 128};
    int *w = widths;
    w[1] = 256;
    for (int i = 0; i < 2; i++) {
        int threads = widths[i];
        wrap<<<8, threads>>>(d);
    }
    return 0;
}
