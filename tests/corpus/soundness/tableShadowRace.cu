//pass
//expect: race

// `threads` is computed from the outer `bs` (512), while the loop's own `bs` comes
// from the table: the launch has 512 threads whatever the table says.
__global__ void wrap(int *d, int n)
{
    d[threadIdx.x % 128] = threadIdx.x + n; //~ race(d)
}

int main()
{
    int *d;
    int bs = 512;
    int threads = bs;
    int sizes[] = {64, 128};
    for (int j = 0; j < 2; j++) {
        int bs = sizes[j];
        wrap<<<1, threads>>>(d, bs);
    }
    return 0;
}
