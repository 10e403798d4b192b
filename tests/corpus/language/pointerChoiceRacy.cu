//fail
//--blockDim=64 --gridDim=1
//expect: race

// Like pointerChoice, but without the barrier in the loop: the neighbour's slot of
// the array read in one iteration is written in the next (both arrays race; the report
// names the array of its witness).
__global__ void alternateRacy(float *out, int steps)
{
    __shared__ float a[64];
    __shared__ float b[64];
    int t = threadIdx.x;
    a[t] = 0.0f;
    b[t] = 0.0f;
    __syncthreads();
    for (int k = 0; k < steps; k++) {
        float *x = (k & 1) ? a : b;
        float *y = (k & 1) ? b : a;
        float *z = x;
        z[t] = y[(t + 1) % 64] + 1.0f; //~ race(a)
    }
    __syncthreads();
    out[t] = a[t] + b[t];
}
