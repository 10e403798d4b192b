//--blockDim=8 --gridDim=1
// AutoSync micro-benchmark 1:1-loop-intra: a race within one iteration of a loop.
// Iteration i works on its own row of the tile, so iterations never conflict; inside
// an iteration thread t reads its right neighbour's element before that neighbour
// overwrites it. One barrier, between the read and the write.

#define ROW 8

__global__ void loop_intra(int *out, int n) {
    __shared__ int tile[64];
    unsigned int t = threadIdx.x;
    for (int i = 0; i < n; i++) {
        int x = tile[i * ROW + (t + 1) % ROW];
        __syncthreads();
        tile[i * ROW + t] = x + i;
    }
    out[t] = n;
}
