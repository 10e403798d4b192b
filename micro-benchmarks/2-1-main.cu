//--blockDim=8 --gridDim=1
// AutoSync micro-benchmark 2:1-main (paper Fig. 7): two races, on two arrays, that one
// barrier between the reads and the writes removes together.

__global__ void two_races(int *out) {
    __shared__ int a[9];
    __shared__ int b[9];
    unsigned int t = threadIdx.x;
    int x = a[t + 1];
    int y = b[t + 1];
    __syncthreads();
    a[t] = x + y;
    b[t] = x - y;
    out[t] = x;
}
