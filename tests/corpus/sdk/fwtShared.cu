//pass
//--blockDim=512 --gridDim=1
//expect: verified

// In-shared-memory Walsh transform of a 2048-point chunk (4 points per thread).
__global__ void fwtBatch1Kernel(float *d_Output, float *d_Input, int log2N)
{
    __requires(log2N == 11);
    const int N = 1 << log2N;
    const int base = blockIdx.x << log2N;

    extern __shared__ float s_data[];
    float *d_Src = d_Input + base;
    float *d_Dst = d_Output + base;

    for (int pos = threadIdx.x; pos < N; pos += blockDim.x)
        s_data[pos] = d_Src[pos];

    int stride = N;
    for (; stride >= 4; stride >>= 2) {
        int lo = threadIdx.x & (stride / 4 - 1);
        int i0 = ((threadIdx.x - lo) << 2) + lo;
        int i1 = i0 + stride / 4;
        int i2 = i1 + stride / 4;
        int i3 = i2 + stride / 4;

        __syncthreads();
        float D0 = s_data[i0];
        float D1 = s_data[i1];
        float D2 = s_data[i2];
        float D3 = s_data[i3];

        float T;
        T = D0; D0 = D0 + D2; D2 = T - D2;
        T = D1; D1 = D1 + D3; D3 = T - D3;
        T = D0; s_data[i0] = D0 + D1; s_data[i1] = T - D1;
        T = D2; s_data[i2] = D2 + D3; s_data[i3] = T - D3;
    }

    if (log2N & 1) {
        __syncthreads();
        for (int pos = threadIdx.x; pos < N / 2; pos += blockDim.x) {
            int i0 = pos << 1;
            int i1 = i0 + 1;
            float D0 = s_data[i0];
            float D1 = s_data[i1];
            s_data[i0] = D0 + D1;
            s_data[i1] = D0 - D1;
        }
    }

    __syncthreads();
    for (int pos = threadIdx.x; pos < N; pos += blockDim.x)
        d_Dst[pos] = s_data[pos];
}
