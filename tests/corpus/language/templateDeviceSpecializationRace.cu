//pass
//--blockDim=128 --gridDim=4
//expect: race

// Twin of templateDeviceSpecialization.cu: here the double specialization maps
// every pair of threads to one slot, so only `fill<double>` races.
template <typename T> __device__ int slot(int t) { return t; }

template <> __device__ int slot<double>(int t) { return t / 2; }

template <typename T> __global__ void fill(T *out, T v)
{
    __shared__ T buf[256];
    int t = threadIdx.x;
    buf[slot<T>(t)] = v + t;  //~ race(buf)
    __syncthreads();
    out[blockIdx.x * 256 + t] = buf[255 - t];
}

void run(float *a, double *b)
{
    fill<float><<<4, 128>>>(a, 1.0f);
    fill<double><<<4, 128>>>(b, 2.0);
}
