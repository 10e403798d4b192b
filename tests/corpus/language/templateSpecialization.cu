//pass
//--blockDim=128 --gridDim=32
//expect: verified

// A generic element-wise kernel with a hand-tuned specialization for float4
// that handles four lanes per thread.
template <typename T> __global__ void saxpy(T *y, const T *x, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

template <> __global__ void saxpy<float4>(float4 *y, const float4 *x, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n / 4) {
        float4 xv = x[i];
        float4 yv = y[i];
        yv.x += a * xv.x;
        yv.y += a * xv.y;
        yv.z += a * xv.z;
        yv.w += a * xv.w;
        y[i] = yv;
    }
}

template __global__ void saxpy<float>(float *, const float *, float, int);
template __global__ void saxpy<double>(double *, const double *, float, int);
