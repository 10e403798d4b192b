//pass
//--blockDim=64 --gridDim=1
//expect: verified

// Each thread copies its own row of four floats into shared memory with `memcpy`,
// and after a barrier reads its neighbour's row; `printf` only reads its arguments.
__global__ void rowCopy(float *out, const float *in)
{
    __shared__ float rows[64 * 4];
    int t = threadIdx.x;
    memcpy(&rows[t * 4], &in[t * 4], 4 * sizeof(float));
    __syncthreads();
    float v = rows[((t + 1) % 64) * 4 + 3];
    if (t == 0) printf("%f %p\n", v, rows);
    out[t] = v;
}
