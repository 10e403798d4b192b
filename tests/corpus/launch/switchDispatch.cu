//expect: verified

// A `switch` on the block size picks the instance, as reduction drivers do: each
// case launches `ring_sum<T, N>` with `threads` threads, and the case says that
// `threads` is N there. `threads` itself is not a constant (it comes from the
// command line), so only the case tells the block size. Cases 64 and 32 share one
// instance sized for the larger of them. Template type `T` is the host template's
// and is bound by main's call `sum_rows<float>`.
#include <cuda_runtime.h>

template <class T, unsigned N>
__global__ void ring_sum(const T *in, T *out)
{
    __shared__ T acc[N];
    unsigned t = threadIdx.x;
    acc[t % N] = in[blockIdx.x * N + t];
    __syncthreads();
    for (unsigned s = N / 2; s > 0; s >>= 1) {
        if (t < s) {
            acc[t] += acc[t + s];
        }
        __syncthreads();
    }
    if (t == 0) {
        out[blockIdx.x] = acc[0];
    }
}

template <class T>
void sum_rows(int threads, int rows, const T *in, T *out)
{
    switch (threads) {
    case 512:
        ring_sum<T, 512><<<rows, threads>>>(in, out);
        break;
    case 256:
        ring_sum<T, 256><<<rows, threads>>>(in, out);
        break;
    case 64:
    case 32:
        ring_sum<T, 64><<<rows, threads>>>(in, out);
        break;
    default:
        break;
    }
}

int main(int argc, char **argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : 256;
    float *d_in, *d_out;
    cudaMalloc(&d_in, 1024 * 512 * sizeof(float));
    cudaMalloc(&d_out, 1024 * sizeof(float));
    sum_rows<float>(threads, 1024, d_in, d_out);
    cudaDeviceSynchronize();
    return 0;
}
