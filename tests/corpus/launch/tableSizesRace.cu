//pass
//expect: race

// Twin of tableSizes.cu: the table also tries 192 threads, and a block of 192 threads
// writes 64 elements of the next block's tile.
#define TILE 128

__global__ void halve(float *out, const float *in)
{
    int i = blockIdx.x * TILE + threadIdx.x;
    out[i] = in[i] * 0.5f + blockIdx.x; //~ race(out)
}

static void launch(float *out, const float *in, int n, int threads)
{
    halve<<<n / TILE, threads>>>(out, in);
}

int main()
{
    float *out, *in;
    const int n = 1 << 16;
    int candidates[] = {32, 64, 128, 192};
    for (int c = 0; c < 4; ++c) {
        int threads = candidates[c];
        launch(out, in, n, threads);
    }
    return 0;
}
