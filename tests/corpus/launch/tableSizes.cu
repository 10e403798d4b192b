//pass
//expect: verified

// The host tries each block size of a table, as benchmarks do: each entry is a launch
// of its own. Every block covers a tile of 128 elements, which is right for blocks of
// at most 128 threads, and each size in the table is.
#define TILE 128

__global__ void halve(float *out, const float *in)
{
    int i = blockIdx.x * TILE + threadIdx.x;
    out[i] = in[i] * 0.5f;
}

static void launch(float *out, const float *in, int n, int threads)
{
    halve<<<n / TILE, threads>>>(out, in);
}

int main()
{
    float *out, *in;
    const int n = 1 << 16;
    int candidates[] = {32, 64, 128};
    for (int c = 0; c < 3; ++c) {
        int threads = candidates[c];
        launch(out, in, n, threads);
    }
    return 0;
}
