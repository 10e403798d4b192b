//fail
//--blockDim=64 --gridDim=1
//expect: divergence

// Like gotoNextIteration, but the barrier sits before the label: the threads that
// jump skip it (a divergent barrier), and the write after the label races with the
// reads of the next iteration.
__global__ void relaxRacy(int *d, int steps)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = d[t];
    __syncthreads();
    for (int k = 0; k < steps; k++) {
        int v = s[(t + k) % 64]; //~ race(s)
        if (v <= 0) goto next;
        d[t] = v - 1;
        __syncthreads(); //~ divergence
    next:
        s[t] = d[t] + k; //~ race(s)
    }
}
