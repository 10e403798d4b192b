//pass
//expect: race

// The twin of threadScratch.cu without the barrier: the scratch buffers still never
// race (each thread's own memory), the shared tile does.
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
    mins[threadIdx.x] = scratch[0];                                  //~ race(mins)
    free(scratch);
    if (threadIdx.x == 0) {
        int m = mins[0];
        for (int k = 1; k < 128; ++k)
            m = min(m, mins[k]);                                     //~ race(mins)
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
