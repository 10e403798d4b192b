//expect: race

// Two writes whose indices have the same weights and extents, digit by digit, but whose
// low digits lie in different ranges: `(x / -1) % N` is in `(-N, 0]`, `x % N` in
// `[0, N)`. With N = 4, thread (1, 1) writes cell 3 through the first and thread (3, 0)
// through the second. Equal indices do not give equal digits here.
__global__ void rows(int *out, int N)
{
    int x = threadIdx.x;
    int y = threadIdx.y;
    if (x < N) {
        out[N * y + (x / -1) % N] = 1; //~ race(out)
        out[N * y + x % N] = 2; //~ race(out)
    }
}

int main(int argc, char **argv)
{
    int *out;
    dim3 block(4, 2);
    rows<<<1, block>>>(out, argc);
    return 0;
}
