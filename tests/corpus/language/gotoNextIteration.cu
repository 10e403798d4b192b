//pass
//--blockDim=64 --gridDim=1
//expect: verified

// `goto next` as a `continue` that still runs the end of the loop body: the barrier
// at the label is reached by every thread in every iteration.
__global__ void relax(int *d, int steps)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = d[t];
    __syncthreads();
    for (int k = 0; k < steps; k++) {
        int v = s[(t + k) % 64];
        if (v <= 0) goto next;
        v = v - 1;
        d[t] = v;
    next:
        __syncthreads();
        s[t] = d[t] + k;
        __syncthreads();
    }
}
