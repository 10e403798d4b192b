//pass
//--blockDim=64 --gridDim=1
//expect: verified

// Pointers that point into different shared arrays on different paths, after
// reassignment, and through a copy: each thread only touches its own slot, and
// the barriers order the phases.
__global__ void alternate(float *out, int steps)
{
    __shared__ float a[64];
    __shared__ float b[64];
    int t = threadIdx.x;
    float *p = &a[0];
    p[t] = 1.0f;
    p = &b[0];
    p[t] = 2.0f;
    __syncthreads();
    for (int k = 0; k < steps; k++) {
        float *x = (k & 1) ? a : b;
        float *y = (k & 1) ? b : a;
        float *z = x;
        z[t] = y[(t + 1) % 64] + 1.0f;
        __syncthreads();
    }
    out[t] = a[t] + b[t];
}
