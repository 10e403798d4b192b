//--blockDim=8 --gridDim=1
// AutoSync micro-benchmark 2:2-loop-both (paper Fig. 4): the neighbour update inside a
// loop. A barrier between the read and the write is not enough: the write of one
// iteration also races with the read of the next. Two barriers.

__global__ void loop_both(int *out, int n) {
    __shared__ int s[9];
    unsigned int t = threadIdx.x;
    for (int i = 0; i < n; i++) {
        __syncthreads();
        int x = s[t + 1];
        __syncthreads();
        s[t] = x + i;
    }
    out[t] = n;
}
