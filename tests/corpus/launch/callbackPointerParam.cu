//expect: verified

// A callback through a parameter declared as a function pointer (no typedef), passed
// by address, to a driver template. Each driver call passes its own launcher; the
// kernel `rows` is launched only through `launch_rows`, with 32 threads per block, and
// `rowsum[t & 31]` is each thread's own slot there.
#include <cuda_runtime.h>

__global__ void rows(int *out, const int *in, int width)
{
    __shared__ int rowsum[32];
    unsigned t = threadIdx.x;
    rowsum[t & 31] = in[blockIdx.x * width + t];
    __syncthreads();
    if (t == 0) {
        int s = 0;
        for (int k = 0; k < 32; k++)
            s += rowsum[k];
        out[blockIdx.x] = s;
    }
}

__global__ void fill(int *out, int v)
{
    out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

void launch_rows(int *out, const int *in, int height)
{
    rows<<<height, 32>>>(out, in, 32);
}

void launch_fill(int *out, const int *in, int height)
{
    fill<<<height, 256>>>(out, 7);
}

template <int Reps>
void drive(void (*body)(int *, const int *, int), int *out, const int *in, int height)
{
    for (int r = 0; r < Reps; r++)
        body(out, in, height);
}

int main()
{
    int *d_in, *d_out;
    cudaMalloc(&d_in, 32 * 100 * sizeof(int));
    cudaMalloc(&d_out, 256 * 100 * sizeof(int));
    drive<3>(&launch_rows, d_out, d_in, 100);
    drive<1>(launch_fill, d_out, d_in, 100);
    return 0;
}
