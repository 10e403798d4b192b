//pass
//--blockDim=256 --gridDim=16
//expect: verified

// A block reduction parameterised by its type and its combining function, both
// template arguments (the function by address).
__device__ float addF(float a, float b) { return a + b; }
__device__ int maxOf(int a, int b) { return a > b ? a : b; }

template <typename T, T (*combine)(T, T)>
__global__ void reduce(const T *in, T *out)
{
    __shared__ T part[256];
    unsigned t = threadIdx.x;
    part[t] = in[blockIdx.x * 256 + t];
    __syncthreads();
    for (unsigned s = 128; s > 0; s >>= 1) {
        if (t < s)
            part[t] = combine(part[t], part[t + s]);
        __syncthreads();
    }
    if (t == 0)
        out[blockIdx.x] = part[0];
}

void run(const float *fin, float *fout, const int *iin, int *iout)
{
    reduce<float, addF><<<16, 256>>>(fin, fout);
    reduce<int, &maxOf><<<16, 256>>>(iin, iout);
}
