//--blockDim=8 --gridDim=1
// AutoSync micro-benchmark 2:1-loop-d2-intra: two races inside a loop nest of depth 2,
// both within one iteration (each (i, j) iteration has its own rows), removed by one
// barrier in the inner loop body.

#define ROW 8

__global__ void nest_intra(int *out, int n, int m) {
    __shared__ int a[128];
    __shared__ int b[128];
    unsigned int t = threadIdx.x;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < m; j++) {
            int row = (i * m + j) * ROW;
            int x = a[row + (t + 1) % ROW];
            int y = b[row + (t + 1) % ROW];
            __syncthreads();
            a[row + t] = x + y;
            b[row + t] = x - y;
        }
    }
    out[t] = n + m;
}
