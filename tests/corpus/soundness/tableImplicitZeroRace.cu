//pass
//expect: race

// The table has four elements of which two are written: the others are 0, which the
// loop also passes, and with n = 0 every thread writes element 0.
__global__ void fill(int *d, int n)
{
    d[n == 0 ? 0 : threadIdx.x] = threadIdx.x; //~ race(d)
}

int main()
{
    int *d;
    int counts[4] = {16, 32};
    for (int i = 0; i < 4; i++) {
        int n = counts[i];
        fill<<<1, 64>>>(d, n);
    }
    return 0;
}
