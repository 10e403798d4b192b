//--blockDim=8 --gridDim=1
// AutoSync micro-benchmark 1:1-loop-inter: a race across iterations of a loop only.
// Iteration i reads row i and writes row i+1, so within an iteration nothing
// conflicts; but thread t+1 reads in iteration i+1 what thread t wrote in iteration i.
// One barrier, at the top of the loop body.

#define ROW 8

__global__ void loop_inter(int *out, int n) {
    __shared__ int rows[72];
    unsigned int t = threadIdx.x;
    for (int i = 0; i < n; i++) {
        __syncthreads();
        int x = rows[i * ROW + t];
        rows[(i + 1) * ROW + (t + 1) % ROW] = x + 1;
    }
    out[t] = n;
}
