//pass
//--blockDim=64 --gridDim=16
//expect: race

// Two launches instantiate one kernel template with different tile widths; only
// the narrower tile (32 < 64 threads) makes two threads of a block share a cell.
template <typename T, int W>
__global__ void stage(T *out, const T *in)
{
    __shared__ T s[W];
    s[threadIdx.x % W] = in[blockIdx.x * blockDim.x + threadIdx.x];  //~ race(s)
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[(threadIdx.x + 1) % W];
}

void launch(float *o, const float *i, int *oi, const int *ii)
{
    stage<float, 64><<<16, 64>>>(o, i);
    stage<int, 32><<<16, 64>>>(oi, ii);
}
