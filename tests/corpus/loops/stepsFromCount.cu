//pass
//--blockDim=64 --gridDim=8
//expect: verified

// Binomial-pricing style: a first loop counts the valid steps (at most 32), a
// second loop walks back from that count. The bound `n <= 32` proved for the
// first loop bounds the second loop's counter after it.
__global__ void stepsFromCount(const float *vals, float *out)
{
    __shared__ float buf[64 * 33];
    unsigned int tid = threadIdx.x;
    int n = 0;
    while (n < 32 && vals[blockIdx.x * 32 + n] > 0.0f)
        n++;
    for (int i = n; i > 0; i--)
        buf[tid * 33 + i] = vals[blockIdx.x * 32 + i - 1];
    __syncthreads();
    out[blockIdx.x * 64 + tid] = buf[tid * 33 + 1];
}
