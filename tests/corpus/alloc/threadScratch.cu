//pass
//expect: verified

// Each thread sorts its window of 8 values in a scratch buffer it allocates itself:
// memory no other thread can reach. The block then publishes its minimum through a
// shared tile, after a barrier.
#define W 8

__global__ void windowMin(const int *in, int *out, int n)
{
    __shared__ int mins[128];
    int *scratch = (int *)malloc(W * sizeof(int));
    unsigned g = blockIdx.x * 128 + threadIdx.x;
    for (int k = 0; k < W; ++k)
        scratch[k] = in[(g + k) % n];
    for (int i = 1; i < W; ++i)
        for (int j = i; j > 0 && scratch[j - 1] > scratch[j]; --j) {
            int t = scratch[j];
            scratch[j] = scratch[j - 1];
            scratch[j - 1] = t;
        }
    mins[threadIdx.x] = scratch[0];
    free(scratch);
    __syncthreads();
    if (threadIdx.x == 0) {
        int m = mins[0];
        for (int k = 1; k < 128; ++k)
            m = min(m, mins[k]);
        out[blockIdx.x] = m;
    }
}

int main()
{
    const int *in;
    int *out;
    windowMin<<<16, 128>>>(in, out, 2048);
    return 0;
}
