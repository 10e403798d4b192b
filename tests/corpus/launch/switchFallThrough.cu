//expect: race

// Twin of switchDispatch.cu: case 512 has no `break`, so a 512-thread launch falls
// through into case 256 and launches `ring_sum<T, 256>` with 512 threads as well
// (besides `ring_sum<T, 512>`): threads t and t + 256 share `acc[t % 256]`.
#include <cuda_runtime.h>

template <class T, unsigned N>
__global__ void ring_sum(const T *in, T *out)
{
    __shared__ T acc[N];
    unsigned t = threadIdx.x;
    acc[t % N] = in[blockIdx.x * N + t];        //~ race(acc)
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
