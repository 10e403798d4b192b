//pass
//--blockDim=128 --gridDim=4
//expect: verified

// The slot a thread writes comes from a device function template; its explicit
// specialization for double spreads the threads over a strided layout. Each
// instantiation launched from the host uses the matching definition.
template <typename T> __device__ int slot(int t) { return t; }

template <> __device__ int slot<double>(int t) { return 2 * t + 1; }

template <typename T> __global__ void fill(T *out, T v)
{
    __shared__ T buf[256];
    int t = threadIdx.x;
    buf[slot<T>(t)] = v;
    __syncthreads();
    out[blockIdx.x * 256 + t] = buf[255 - t];
}

void run(float *a, double *b)
{
    fill<float><<<4, 128>>>(a, 1.0f);
    fill<double><<<4, 128>>>(b, 2.0);
}
