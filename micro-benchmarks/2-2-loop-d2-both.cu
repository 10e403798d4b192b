//--blockDim=8 --gridDim=1
// AutoSync micro-benchmark 2:2-loop-d2-both: the neighbour update of Fig. 4 inside a
// loop nest of depth 2. The read and the write race within an iteration and across
// iterations of the inner loop: two barriers, one at the top of the inner body and one
// between the read and the write.

__global__ void nest_both(int *out, int n, int m) {
    __shared__ int s[9];
    unsigned int t = threadIdx.x;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < m; j++) {
            __syncthreads();
            int x = s[t + 1];
            __syncthreads();
            s[t] = x + i + j;
        }
    }
    out[t] = n;
}
