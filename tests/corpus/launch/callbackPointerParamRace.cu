//expect: race

// The twin of callbackPointerParam.cu: the launcher takes its block size from the
// driver, and the driver passes 64, so threads t and t + 32 share `rowsum[t & 31]`.
#include <cuda_runtime.h>

__global__ void rows(int *out, const int *in, int width)
{
    __shared__ int rowsum[32];
    unsigned t = threadIdx.x;
    rowsum[t & 31] = in[blockIdx.x * width + t]; //~ race(rowsum)
    __syncthreads();
    if (t == 0) {
        int s = 0;
        for (int k = 0; k < 32; k++)
            s += rowsum[k];
        out[blockIdx.x] = s;
    }
}

void launch_rows(int *out, const int *in, int height, int threads)
{
    rows<<<height, threads>>>(out, in, threads);
}

template <int Reps>
void drive(void (*body)(int *, const int *, int, int), int *out, const int *in, int height)
{
    for (int r = 0; r < Reps; r++)
        body(out, in, height, Reps * 32);
}

int main()
{
    int *d_in, *d_out;
    cudaMalloc(&d_in, 64 * 100 * sizeof(int));
    cudaMalloc(&d_out, 100 * sizeof(int));
    drive<2>(&launch_rows, d_out, d_in, 100);
    return 0;
}
